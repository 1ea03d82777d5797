/**
 * Runs the migrations in `migrations/` that the database has not seen. Each runs in a transaction, so a
 * migration that fails (or a process killed half-way) leaves the schema as it was.
 *
 * Most starts find nothing to do, and Kysely's migrator takes eight statements to find that out (two of
 * them read the whole catalog), so one query looks first: when the database has run exactly these
 * migrations, in this order, there is nothing to do; anything else goes to the migrator as before.
 */
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely'
import * as m0001 from './migrations/0001_initial.ts'
import * as m0002 from './migrations/0002_console.ts'
import * as m0003 from './migrations/0003_striped_counts.ts'
import * as m0004 from './migrations/0004_access_notify.ts'
import * as m0005 from './migrations/0005_lookups_notify.ts'
import * as m0006 from './migrations/0006_vendor_key.ts'
import * as m0007 from './migrations/0007_events.ts'
import * as m0008 from './migrations/0008_requests.ts'
import * as m0009 from './migrations/0009_pending_counts.ts'
import * as m0010 from './migrations/0010_session_row_counts.ts'
import * as m0011 from './migrations/0011_delegated_plan.ts'
import * as m0012 from './migrations/0012_authority_fresh.ts'
import * as m0013 from './migrations/0013_purchase_orders.ts'
import * as m0014 from './migrations/0014_approval_emails.ts'
import * as m0015 from './migrations/0015_sso.ts'
import * as m0016 from './migrations/0016_bills.ts'
import * as m0017 from './migrations/0017_order_counts.ts'
import * as m0018 from './migrations/0018_delegated_bills.ts'
import * as m0021 from './migrations/0021_lookup_updated_at.ts'
import * as m0022 from './migrations/0022_order_notes.ts'
import * as m0030 from './migrations/0030_bill_number_key.ts'
import * as m0031 from './migrations/0031_tenant_keys.ts'
import * as m0032 from './migrations/0032_document_kinds.ts'
import * as m0033 from './migrations/0033_attachments.ts'
import * as m0034 from './migrations/0034_budgets.ts'
import * as m0035 from './migrations/0035_expenses_travel.ts'
import * as m0036 from './migrations/0036_payments.ts'
import * as m0037 from './migrations/0037_pending_removals.ts'

const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_console': m0002,
  '0003_striped_counts': m0003,
  '0004_access_notify': m0004,
  '0005_lookups_notify': m0005,
  '0006_vendor_key': m0006,
  '0007_events': m0007,
  '0008_requests': m0008,
  '0009_pending_counts': m0009,
  '0010_session_row_counts': m0010,
  '0011_delegated_plan': m0011,
  '0012_authority_fresh': m0012,
  '0013_purchase_orders': m0013,
  '0014_approval_emails': m0014,
  '0015_sso': m0015,
  '0016_bills': m0016,
  '0017_order_counts': m0017,
  '0018_delegated_bills': m0018,
  '0021_lookup_updated_at': m0021,
  '0022_order_notes': m0022,
  '0030_bill_number_key': m0030,
  '0031_tenant_keys': m0031,
  '0032_document_kinds': m0032,
  '0033_attachments': m0033,
  '0034_budgets': m0034,
  '0035_expenses_travel': m0035,
  '0036_payments': m0036,
  '0037_pending_removals': m0037,
}

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) }

const MIGRATION_TABLE = 'schema_migrations'
const UNDEFINED_TABLE = '42P01'

/**
 * Whether the database has run exactly the known migrations. Executed ones are ordered as the migrator
 * orders them (by time stamp, then name), so a database it would call corrupted is not up to date here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migration table is not in the schema types
async function upToDate(db: Kysely<any>): Promise<boolean> {
  let rows: { name: string; timestamp: string }[]
  try {
    rows = await db.selectFrom(MIGRATION_TABLE).select(['name', 'timestamp']).execute()
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return false // a new database
    throw error
  }
  // Names are compared by code unit, as `known` is sorted: for these ASCII names the migrator's order, without
  // the first localeCompare's loading ICU's collator (about 5 ms of every start).
  // Each time stamp is read once, not at every comparison (a sort of 60 rows read them some 700 times).
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  const executed = rows
    .map((row) => ({ name: row.name, at: new Date(row.timestamp).getTime() }))
    .sort((a, b) => (a.at === b.at ? byName(a.name, b.name) : a.at - b.at))
    .map((row) => row.name)
  const known = Object.keys(migrations).sort()
  return executed.length === known.length && executed.every((name, i) => name === known[i])
}

/** Applies pending migrations; returns the names applied. Throws if one fails. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see the schema before the table types apply
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  if (await upToDate(db)) return []
  const { error, results } = await migratorOf(db).migrateToLatest()
  if (error !== undefined)
    throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`)
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** Applies the pending migrations up to and including `last` only (upgrade tests run one migration on its own). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
export async function migrateTo(db: Kysely<any>, last: string): Promise<string[]> {
  const { error, results } = await migratorOf(db).migrateTo(last)
  if (error !== undefined)
    throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`)
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
const migratorOf = (db: Kysely<any>) =>
  new Migrator({ db, provider, migrationTableName: MIGRATION_TABLE, migrationLockTableName: 'schema_migrations_lock' })

/** Every known migration, in order, with when it ran on this database (undefined: pending). Changes nothing. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
export async function migrationStatus(db: Kysely<any>): Promise<{ name: string; executedAt: Date | undefined }[]> {
  const known = await migratorOf(db).getMigrations()
  return known.map((m) => ({ name: m.name, executedAt: m.executedAt }))
}

/** The names of every known migration, in the order they run. */
export const migrationNames = (): string[] => Object.keys(migrations).sort()
