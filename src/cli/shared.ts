/** What every command shares: usage errors, and a database opened for one command and closed after it. */
import type { Config } from '../config.ts'
import { askServer, type ControlRequest } from '../control-client.ts'
import type { Database } from '../db/database.ts'

export { UsageError } from './usage.ts'

export async function withDatabase<T>(
  config: Readonly<Config>,
  command: string,
  work: (db: Database['db']) => Promise<T>,
  prepare?: (db: Database) => Promise<void>,
): Promise<T> {
  // Loaded here, not at the top: a command the running server answers (viaServerOr) never needs them.
  const [{ serverKeys }, { openDatabase }, { prepareDatabase }] = await Promise.all([
    import('../keys.ts'),
    import('../db/database.ts'),
    import('../seed/prepare.ts'),
  ])
  // The embedded database and its key file are made together: a database is never without its keys, and
  // a damaged or missing key file next to an existing database stops the command here (keys.ts).
  serverKeys(config)
  const database = await openDatabase(config, {
    command,
    prepare: prepare ?? ((db) => prepareDatabase(db, config)),
    seedsDemo: prepare === undefined && config.demoSeed,
  })
  try {
    return await work(database.db)
  } finally {
    await database.close()
  }
}

/** Only migrations, no demo seed (for `migrate` and `seed`, which decide themselves). */
export async function migrateOnly(db: Database): Promise<void> {
  const { migrateToLatest } = await import('../db/migrate.ts')
  await migrateToLatest(db.db)
}

/** Prints JSON with --json, else the text. */
export const printer = (json: boolean | undefined) => (value: unknown, text: string) =>
  console.log(json === true ? JSON.stringify(value) : text)

/**
 * With the embedded database while the server runs, the server answers `request` through its control socket
 * (control.ts); otherwise the command opens the database and runs `local`. Both give the same rows, but
 * through JSON: dates arrive as ISO strings.
 */
export async function viaServerOr<T>(
  config: Readonly<Config>,
  request: ControlRequest,
  local: (db: Database['db']) => Promise<T>,
): Promise<T> {
  if (config.DATABASE_URL === undefined) {
    const answer = await askServer(config.dataDir, request)
    if (answer !== undefined) return answer as T
  }
  return withDatabase(config, request.op, local)
}
