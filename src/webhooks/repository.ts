/** SQL of webhook endpoints and deliveries (the delivery worker's claims are in worker.repository.ts). */
import { sql, type Kysely, type Selectable } from 'kysely'
import { listSql } from '../db/list.ts'
import type { DB, WebhookDeliveryTable, WebhookEndpointTable } from '../db/schema.ts'
import { WebhookEndpointListQuery } from './schema.ts'

export type EndpointRow = Selectable<WebhookEndpointTable>
export type DeliveryRow = Selectable<WebhookDeliveryTable>

export const insertEndpoint = (
  db: Kysely<DB>,
  values: {
    tenant_id: number
    url: string
    event_types: string[]
    description: string
    enabled: boolean
    secret: string
  },
) => db.insertInto('webhook_endpoints').values(values).returningAll().executeTakeFirstOrThrow()

/**
 * The number of the tenant's endpoints, counted after locking the tenant's row: two creations at the same
 * instant are counted one after the other, so the cap holds under concurrency.
 */
export async function lockedEndpointCount(db: Kysely<DB>, tenantId: number): Promise<number> {
  await db.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().execute()
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export const listEndpoints = (db: Kysely<DB>, tenantId: number) =>
  db.selectFrom('webhook_endpoints').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute()

/** A page of the tenant's endpoints and its exact total, as every list reads (db/list.ts). */
const selectEndpoints = (db: Kysely<DB>) => db.selectFrom('webhook_endpoints as w').selectAll('w')

export const pageOfEndpoints = listSql(WebhookEndpointListQuery, {
  select: selectEndpoints,
  tenant: 'w.tenant_id',
  id: 'w.id',
  order: { created_at: 'w.created_at', url: 'w.url' },
  search: ['w.url', 'w.description'],
  filters: { enabled: 'w.enabled' },
})

export const findEndpoint = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()

export interface EndpointChanges {
  url?: string
  event_types?: string[]
  description?: string
  enabled?: boolean
}

/** Applies `changes`; enabling clears the reason the service had switched it off. */
export const updateEndpoint = (db: Kysely<DB>, tenantId: number, id: number, changes: EndpointChanges) =>
  Object.keys(changes).length === 0
    ? findEndpoint(db, tenantId, id)
    : db
        .updateTable('webhook_endpoints')
        .set({
          ...changes,
          ...(changes.enabled === true ? { disabled_reason: null, disabled_at: null, failing_since: null } : {}),
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()

export const deleteEndpoint = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (await db.deleteFrom('webhook_endpoints').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst())
    .numDeletedRows > 0n

/** A new secret; the old one keeps signing until `until`. */
export const rotateSecret = (db: Kysely<DB>, tenantId: number, id: number, secret: string, until: Date) =>
  db
    .updateTable('webhook_endpoints')
    .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_until: until, secret }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()

/** One page of an endpoint's deliveries, newest first, with the total. */
export async function pageOfDeliveries(
  db: Kysely<DB>,
  tenantId: number,
  endpointId: number,
  limit: number,
  offset: number,
): Promise<{ rows: DeliveryRow[]; count: number }> {
  const base = db
    .selectFrom('webhook_deliveries')
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, count: Number(total.n) }
}

/**
 * Makes a delivery due now. A finished one gets one more attempt (its schedule stays spent: a failure
 * leaves it failed again); a pending one has its next attempt brought forward.
 */
export const retryDelivery = (db: Kysely<DB>, tenantId: number, endpointId: number, id: number, spent: number) =>
  sql<{ id: number }>`
    UPDATE webhook_deliveries SET
      scheduled_attempts = CASE WHEN status = 'pending' THEN scheduled_attempts
                                ELSE greatest(scheduled_attempts, ${spent}) END,
      status = 'pending', next_attempt_at = now()
    WHERE tenant_id = ${tenantId} AND endpoint_id = ${endpointId} AND id = ${id}
    RETURNING id`
    .execute(db)
    .then((r) => r.rows.length > 0)
