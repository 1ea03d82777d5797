/**
 * Runs `work` atomically. On the database it opens a transaction. Inside a transaction that a caller holds
 * open across a whole request (a controlled transaction, as the idempotency layer uses), it runs in a
 * savepoint, so a failure rolls back only this work and the request's transaction stays usable.
 */
import { ControlledTransaction, type Kysely } from 'kysely'
import type { DB } from './schema.ts'

let savepoints = 0

export async function inTransaction<T>(db: Kysely<DB>, work: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  if (db instanceof ControlledTransaction) {
    const outer = db as ControlledTransaction<DB>
    const name: string = `work_${++savepoints}`
    const inner = await outer.savepoint(name).execute()
    try {
      const result = await work(inner)
      await inner.releaseSavepoint(name).execute()
      return result
    } catch (error) {
      await inner
        .rollbackToSavepoint(name)
        .execute()
        .catch(() => undefined)
      throw error
    }
  }
  return db.isTransaction ? work(db) : db.transaction().execute(work)
}
