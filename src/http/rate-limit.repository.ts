/** SQL of the shared rate-limit windows (rate-limit.ts): per application and minute, across nodes. */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

/** Adds `pending` requests to the application's window and reads back its total. */
export async function addToWindow(
  db: Kysely<DB>,
  tenantId: number,
  applicationId: number,
  start: Date,
  pending: number,
) {
  return db
    .insertInto('rate_limit_windows')
    .values({ tenant_id: tenantId, application_id: applicationId, window_start: start, n: pending })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'application_id', 'window_start'])
        .doUpdateSet({ n: sql`rate_limit_windows.n + ${pending}` }),
    )
    .returning('n')
    .executeTakeFirstOrThrow()
}

/** Forgets the windows that started before `cutoff`. */
export async function dropWindowsBefore(db: Kysely<DB>, cutoff: Date) {
  await db.deleteFrom('rate_limit_windows').where('window_start', '<', cutoff).execute()
}
