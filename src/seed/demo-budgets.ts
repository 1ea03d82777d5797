/**
 * The demo's accounts and budgets, made through the services as the administrator would, after the demo's
 * documents so that no document's approval changes: three general-ledger accounts, and budgets for this
 * calendar year — the Head Office's near its limit (about 90 % used by what the demo's documents count), the
 * East Warehouse's over with `approve` (the manager approves what goes further over), the Berlin Office's with
 * room under `block`, and a Travel budget of every location with nothing counted yet. The amounts are set from
 * what the ledger holds when the demo is seeded, so they stay near and over whatever documents the demo has.
 */
import { sql, type Kysely } from 'kysely'
import { operatorActor, type Actor } from '../access/actor.ts'
import { createAccount } from '../accounts/service.ts'
import { createBudget } from '../budgets/service.ts'
import { PERMISSION_KEYS, type DB } from '../db/schema.ts'
import type { DemoPeople } from './demo-requests.ts'

export const DEMO_ACCOUNTS = [
  { code: '6100', name: 'Office supplies' },
  { code: '6400', name: 'Travel' },
  { code: '6500', name: 'Repairs and maintenance' },
] as const

/** What the ledger counts (pending, committed and spent) at `location` within the period, in cents. */
async function usedCents(tx: Kysely<DB>, tenantId: number, location: number, from: string, to: string) {
  const row = await sql<{ cents: string }>`
    SELECT (coalesce(sum(amount), 0) * 100)::bigint::text AS cents FROM ledger_totals
     WHERE tenant_id = ${tenantId} AND location_id = ${location} AND budget_date BETWEEN ${from}::date AND ${to}::date`.execute(
    tx,
  )
  return BigInt(row.rows[0]?.cents ?? '0')
}

/** Cents as a decimal string of whole units, rounded up (`up`) or down to a multiple of ten. */
const tens = (cents: bigint, up: boolean) => {
  const step = 1000n
  const rounded = up ? ((cents + step - 1n) / step) * step : (cents / step) * step
  return (rounded / 100n).toString()
}

export async function seedBudgets(tx: Kysely<DB>, p: DemoPeople): Promise<void> {
  const operator = operatorActor({ id: p.tenantId, domain: p.domain })
  const admin: Actor = {
    ...operator,
    userId: p.admin.userId,
    email: p.admin.email,
    permissions: new Set(PERMISSION_KEYS),
  }
  const [headOffice, east, berlin] = p.locations as [number, number, number]
  const accounts = []
  for (const account of DEMO_ACCOUNTS) accounts.push(await createAccount(tx, admin, account))
  const year = new Date().getUTCFullYear()
  const period = { period_start: `${year}-01-01`, period_end: `${year}-12-31` }
  const used = (location: number) => usedCents(tx, p.tenantId, location, period.period_start, period.period_end)

  // Near its limit: what is counted is about 90 % of the amount (1,000.00 when nothing is counted yet).
  const office = await used(headOffice)
  await createBudget(tx, admin, {
    name: `Head Office ${year}`,
    location: headOffice,
    amount: office === 0n ? '1000' : tens((office * 10n) / 9n, true),
    action: 'warn',
    owner: p.manager.profileId,
    ...period,
  })
  // Over, with approve: about 90 % of what is counted (the manager approves any further spend over it).
  const warehouse = await used(east)
  await createBudget(tx, admin, {
    name: `East Warehouse ${year}`,
    location: east,
    amount: warehouse === 0n ? '500' : tens((warehouse * 9n) / 10n, false),
    action: 'approve',
    owner: p.manager.profileId,
    ...period,
  })
  await createBudget(tx, admin, {
    name: `Berlin Office ${year}`,
    location: berlin,
    amount: '5000',
    action: 'block',
    ...period,
  })
  await createBudget(tx, admin, {
    name: `Travel ${year}`,
    account: accounts[1]!.id,
    amount: '2000',
    action: 'warn',
    owner: p.manager.profileId,
    ...period,
  })
}
