/** What every command shares: usage errors, and a database opened for one command and closed after it. */
import type { Config } from '../config.ts'
import { openDatabase, type Database } from '../db/database.ts'
import { migrateToLatest } from '../db/migrate.ts'
import { serverKeys } from '../keys.ts'
import { prepareDatabase } from '../server.ts'

/** Wrong usage: printed with the help text, exit code 2. */
export class UsageError extends Error {}

export async function withDatabase<T>(
  config: Readonly<Config>,
  command: string,
  work: (db: Database['db']) => Promise<T>,
  prepare: (db: Database) => Promise<void> = (db) => prepareDatabase(db, config),
): Promise<T> {
  // The embedded database and its key file are made together: a database is never without its keys, and
  // a damaged or missing key file next to an existing database stops the command here (keys.ts).
  serverKeys(config)
  const database = await openDatabase(config, { command, prepare })
  try {
    return await work(database.db)
  } finally {
    await database.close()
  }
}

/** Only migrations, no demo seed (for `migrate` and `seed`, which decide themselves). */
export const migrateOnly = (db: Database) => migrateToLatest(db.db).then(() => undefined)

/** Prints JSON with --json, else the text. */
export const printer = (json: boolean | undefined) => (value: unknown, text: string) =>
  console.log(json === true ? JSON.stringify(value) : text)
