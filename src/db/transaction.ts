/** Runs `work` in a transaction: the caller's, when it already holds one, or a new one. */
import type { Kysely } from 'kysely'
import type { DB } from './schema.ts'

export function inTransaction<T>(db: Kysely<DB>, work: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work)
}
