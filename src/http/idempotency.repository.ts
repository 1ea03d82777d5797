/** SQL for idempotency keys: one row per (tenant, application, key), holding the first successful response. */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export interface Scope {
  tenantId: number
  applicationId: number
  key: string
}

export interface StoredResponse {
  status: number
  type: string | null
  headers: Record<string, string>
  body: string
}

/** The stored response for this key, if it has not expired. */
export const findLive = (db: Kysely<DB>, s: Scope) =>
  db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'response_status', 'response_type', 'response_headers', 'response_body'])
    .where('tenant_id', '=', s.tenantId)
    .where('application_id', '=', s.applicationId)
    .where('key', '=', s.key)
    .where('expires_at', '>', new Date())
    .executeTakeFirst()

/**
 * Takes the key for the rest of the transaction without waiting: false when another transaction (in any
 * process) holds it, i.e. a request with this key is running right now.
 */
export async function tryLock(db: Kysely<DB>, s: Scope): Promise<boolean> {
  const name = `idempotency ${s.tenantId} ${s.applicationId} ${s.key}`
  const { rows } = await sql<{
    locked: boolean
  }>`select pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) as locked`.execute(db)
  return rows[0]?.locked === true
}

/** Stores the response, replacing an expired record of the same key. Runs in the write's own transaction. */
export async function store(
  db: Kysely<DB>,
  s: Scope,
  requestHash: string,
  response: StoredResponse,
  ttlMs: number,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('tenant_id', '=', s.tenantId)
    .where('application_id', '=', s.applicationId)
    .where('key', '=', s.key)
    .execute()
  await db
    .insertInto('idempotency_keys')
    .values({
      tenant_id: s.tenantId,
      application_id: s.applicationId,
      key: s.key,
      request_hash: requestHash,
      status: 'done',
      response_status: response.status,
      response_type: response.type,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
      expires_at: new Date(Date.now() + ttlMs),
    })
    .execute()
}
