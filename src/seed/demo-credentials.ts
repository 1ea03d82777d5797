/**
 * The demo application, created on the first start so the printed Client ID and Secret work at once.
 * Its secret is printed exactly once: the record is marked shown only after printing, and if the process
 * died in between, the next start rotates the secret (the lost one stops working) and prints the new one.
 * On a copy of the build's demo template the same transaction dates the demo as of today (demo-template.ts).
 */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import { operatorActor } from '../access/actor.ts'
import { insertWithCredentials, rotateApplication, type IssuedCredentials } from '../applications/service.ts'
import { issueLink } from '../invitations/service.ts'
import { DEMO_ADMIN_EMAIL, DEMO_DOMAIN } from './demo.ts'
import { BUILT_DEMO_KEY, freshenBuiltDemo } from './demo-template.ts'

const KEY = 'demo_credentials'

interface State {
  client_id: string
  shown: boolean
}

/**
 * Whether `demoCredentialsToShow` may have something to print: one read, with no transaction and no lock, that
 * a start makes while it builds the app, so that once the credentials were shown it says so at once (a
 * restart does not wait on a locking transaction to learn that it has nothing to print). True on a copy of
 * the build's demo template, and while the demo tenant's credentials were not shown.
 */
export async function demoCredentialsPending(db: Kysely<DB>): Promise<boolean> {
  const found = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('system_state').select('value').where('key', '=', KEY).as('state'),
      eb.exists(eb.selectFrom('system_state').select('key').where('key', '=', BUILT_DEMO_KEY)).as('built'),
      eb
        .exists(
          eb
            .selectFrom('users as u')
            .innerJoin('tenants as t', 't.id', 'u.tenant_id')
            .select('u.id')
            .where('t.domain', '=', DEMO_DOMAIN)
            .where('u.email', '=', DEMO_ADMIN_EMAIL),
        )
        .as('owner'),
    ])
    .executeTakeFirstOrThrow()
  const state = found.state as State | null
  return found.built === true || (found.owner === true && state?.shown !== true)
}

/**
 * Credentials and a console set-up link for admin@example.com to print now, or undefined when they were
 * already shown (or there is no demo tenant). The link is new each time this returns something.
 */
export async function demoCredentialsToShow(
  db: Kysely<DB>,
  pepper: Buffer,
): Promise<(IssuedCredentials & { setupToken: string }) | undefined> {
  return db.transaction().execute(async (tx) => {
    // With the build's marker, when the database is a copy of its demo template (demo-template.ts).
    const rows = await tx
      .selectFrom('system_state')
      .select(['key', 'value'])
      .where('key', 'in', [KEY, BUILT_DEMO_KEY])
      .forUpdate()
      .execute()
    const built = rows.find((r) => r.key === BUILT_DEMO_KEY)
    if (built !== undefined) await freshenBuiltDemo(tx, built.value)
    const state = rows.find((r) => r.key === KEY)?.value as State | undefined
    if (state?.shown === true) return undefined
    const owner = await tx
      .selectFrom('users as u')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select(['u.id', 'u.tenant_id', 't.domain'])
      .where('t.domain', '=', DEMO_DOMAIN)
      .where('u.email', '=', DEMO_ADMIN_EMAIL)
      .executeTakeFirst()
    if (owner === undefined) return undefined
    // The lost secret is replaced, as the operator would at the command line (and audited so).
    const setupToken = await issueLink(tx, owner.tenant_id, owner.id, 'setup')
    if (state !== undefined) {
      const actor = operatorActor({ id: owner.tenant_id, domain: owner.domain })
      return { ...(await rotateApplication(tx, pepper, actor, state.client_id)), setupToken }
    }
    const created = await insertWithCredentials(
      tx,
      pepper,
      { tenantId: owner.tenant_id, userId: owner.id },
      'Demo application (created on first start)',
    )
    const value: State = { client_id: created.client_id, shown: false }
    await tx
      .insertInto('system_state')
      .values({ key: KEY, value: JSON.stringify(value) })
      .execute()
    return { client_id: created.client_id, client_secret: created.client_secret, setupToken }
  })
}

export async function markDemoCredentialsShown(db: Kysely<DB>, clientId: string): Promise<void> {
  const value: State = { client_id: clientId, shown: true }
  await db
    .updateTable('system_state')
    .set({ value: JSON.stringify(value) })
    .where('key', '=', KEY)
    .execute()
}
