/**
 * What every start and every command that opens the database does first. Apart from server.ts so that a
 * command (src/cli/shared.ts) gets it without loading the HTTP app.
 */
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { migrateToLatest } from '../db/migrate.ts'
import { countTenants } from '../tenants/service.ts'
import { seedDemo } from './demo.ts'

/** Migrates; on a database with no tenant at all, seeds the demo tenant when configured to (config.demoSeed). */
export async function prepareDatabase(database: Database, config: Readonly<Config>): Promise<void> {
  await migrateToLatest(database.db)
  if (!config.demoSeed) return
  if ((await countTenants(database.db)) === 0) await seedDemo(database.db)
}
