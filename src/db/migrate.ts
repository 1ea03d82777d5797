/**
 * Runs the migrations in `migrations/` that the database has not seen. Each runs in a transaction, so a
 * migration that fails (or a process killed half-way) leaves the schema as it was.
 */
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely'
import * as m0001 from './migrations/0001_initial.ts'
import * as m0002 from './migrations/0002_console.ts'
import * as m0003 from './migrations/0003_striped_counts.ts'
import * as m0004 from './migrations/0004_access_notify.ts'
import * as m0005 from './migrations/0005_lookups_notify.ts'

const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_console': m0002,
  '0003_striped_counts': m0003,
  '0004_access_notify': m0004,
  '0005_lookups_notify': m0005,
}

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) }

/** Applies pending migrations; returns the names applied. Throws if one fails. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see the schema before the table types apply
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error !== undefined)
    throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`)
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
