/**
 * The demo tenant ready-made in the build's database: `npm run build` seeds it into
 * dist/embedded-template-demo/ (scripts/embedded-template.js), and a first embedded start copies that folder
 * instead of seeding (some 560 statements through the services, most of a first start's time). A marker row
 * says the database came from the build, and on which day it was seeded.
 *
 * What a seed made at build time cannot know is made at the first start, in one transaction
 * (demo-credentials.ts): the demo application's secret and the administrator's console link (made at every
 * first start in any case), and what counts from the day of seeding — the buyer's return from leave, set
 * again through the service when the first start is on a later day than the build. The records keep the time
 * stamps of the build that made them. A restart pays nothing for this: the marker is read with the
 * credentials' own row.
 */
import type { Kysely } from 'kysely'
import { operatorActor } from '../access/actor.ts'
import type { DB } from '../db/schema.ts'
import { setDelegation } from '../users/delegation.service.ts'
import { buyerAwayUntil, DEMO_ADMIN_EMAIL, DEMO_BUYER_EMAIL, DEMO_DOMAIN } from './demo.ts'

const KEY = 'demo_template'

interface Marker {
  /** When the build seeded the demo (ISO 8601). */
  seeded_at: string
}

/** Marks a freshly seeded database as the build's template (scripts/embedded-template.js). */
export async function markBuiltDemo(db: Kysely<DB>): Promise<void> {
  const value: Marker = { seeded_at: new Date().toISOString() }
  await db
    .insertInto('system_state')
    .values({ key: KEY, value: JSON.stringify(value) })
    .execute()
}

const today = () => new Date().toISOString().slice(0, 10)

/** The marker's key in system_state: demo-credentials.ts reads it with its own row, at no extra query. */
export const BUILT_DEMO_KEY = KEY

/**
 * On a database copied from the build's demo template (its marker `value` read, locked, in `tx`): dates the
 * demo as of today and removes the marker. Run in the first start's transaction that makes the demo's
 * credentials (demo-credentials.ts), so a start killed before it commits does it again on the next start.
 */
export async function freshenBuiltDemo(tx: Kysely<DB>, value: unknown): Promise<void> {
  if ((value as Marker).seeded_at.slice(0, 10) !== today()) await redate(tx)
  await tx.deleteFrom('system_state').where('key', '=', KEY).execute()
}

/** The buyer's leave, counted from today again, as the operator would set it (audited, with its event). */
async function redate(tx: Kysely<DB>): Promise<void> {
  const people = await tx
    .selectFrom('user_profiles as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .innerJoin('tenants as t', 't.id', 'p.tenant_id')
    .select(['p.id', 'u.email', 't.id as tenant_id'])
    .where('t.domain', '=', DEMO_DOMAIN)
    .where('u.email', 'in', [DEMO_ADMIN_EMAIL, DEMO_BUYER_EMAIL])
    .execute()
  const admin = people.find((p) => p.email === DEMO_ADMIN_EMAIL)
  const buyer = people.find((p) => p.email === DEMO_BUYER_EMAIL)
  if (admin === undefined || buyer === undefined) return // changed by hand before the first start: leave it
  const operator = operatorActor({ id: admin.tenant_id, domain: DEMO_DOMAIN })
  await setDelegation(tx, operator, buyer.id, { delegatee: admin.id, expected_return_date: buyerAwayUntil() })
}
