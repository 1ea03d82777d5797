/** SQL for idempotency keys: one row per (tenant, application, key), holding the first response. */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

interface Scope {
  tenantId: number
  applicationId: number
  key: string
}
const scoped = (db: Kysely<DB>, s: Scope) =>
  db.selectFrom('idempotency_keys').where('tenant_id', '=', s.tenantId).where('application_id', '=', s.applicationId).where('key', '=', s.key)

/** Takes the key for this request; false when another request holds it (and it has not expired). */
export async function claim(db: Kysely<DB>, s: Scope, requestHash: string, ttlMs: number): Promise<boolean> {
  await db.deleteFrom('idempotency_keys').where('tenant_id', '=', s.tenantId).where('application_id', '=', s.applicationId).where('key', '=', s.key).where('expires_at', '<', new Date()).execute()
  const row = await db
    .insertInto('idempotency_keys')
    .values({ tenant_id: s.tenantId, application_id: s.applicationId, key: s.key, request_hash: requestHash, expires_at: new Date(Date.now() + ttlMs) })
    .onConflict((oc) => oc.doNothing())
    .returning('key')
    .executeTakeFirst()
  return row !== undefined
}

export const find = (db: Kysely<DB>, s: Scope) => scoped(db, s).selectAll().executeTakeFirst()

export const complete = (db: Kysely<DB>, s: Scope, response: { status: number; type: string | null; headers: Record<string, string>; body: string }, ttlMs: number) =>
  db
    .updateTable('idempotency_keys')
    .set({
      status: 'done',
      response_status: response.status,
      response_type: response.type,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
      expires_at: new Date(Date.now() + ttlMs),
    })
    .where('tenant_id', '=', s.tenantId)
    .where('application_id', '=', s.applicationId)
    .where('key', '=', s.key)
    .execute()

export const release = (db: Kysely<DB>, s: Scope) =>
  db.deleteFrom('idempotency_keys').where('tenant_id', '=', s.tenantId).where('application_id', '=', s.applicationId).where('key', '=', s.key).execute()
