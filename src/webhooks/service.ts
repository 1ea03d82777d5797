/** Webhook endpoints and their deliveries: the rules (superuser only), and rows → API shapes. */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { inTransaction } from '../db/transaction.ts'
import { pageRequest, type Page } from '../core/list-query.ts'
import type { DB } from '../db/schema.ts'
import { eventId, numberEvents } from '../events/service.ts'
import { conflict, notFound, validationFailed } from '../core/problem.ts'
import { resolveDestination, urlProblem, type Policy } from './destinations.ts'
import * as repo from './repository.ts'
import type {
  DeliveryListQuery,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointListQuery,
  WebhookEndpointPatch,
} from './schema.ts'
import { newSecret } from './signing.ts'

export type { Policy } from './destinations.ts'

/** How long the previous secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_HOURS = 24

/** Endpoints receive every event of the tenant, whatever its location: superuser only (DECISIONS). */
const MANAGERS = ['superuser'] as const

/** At most this many endpoints per tenant (DECISIONS): each event is queued once per endpoint. */
export const MAX_ENDPOINTS = 16

const RESOURCE = 'webhook_endpoint'
/** What an endpoint write records in the audit log: its settings, never its secret. */
const audited = (row: repo.EndpointRow) => ({
  url: row.url,
  event_types: row.event_types,
  description: row.description,
  enabled: row.enabled,
})

export const toEndpoint = (row: repo.EndpointRow): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  event_types: row.event_types,
  description: row.description,
  enabled: row.enabled,
  created_at: row.created_at.toISOString(),
})

const withSecret = (row: repo.EndpointRow) => ({ ...toEndpoint(row), secret: row.secret })

export const toDelivery = (row: repo.DeliveryRow): WebhookDelivery => ({
  id: row.id,
  event: row.event_n === null ? null : eventId(row.event_n),
  event_type: row.event_type,
  status: row.status,
  attempts: row.attempts,
  next_attempt_at: row.status === 'pending' && row.next_attempt_at !== null ? row.next_attempt_at.toISOString() : null,
  created_at: row.created_at.toISOString(),
})

/** 400 unless the URL's form is allowed and it does not resolve to an address that is not public. */
async function checkUrl(url: string, policy: Policy): Promise<void> {
  const problem = urlProblem(url, policy)
  if (problem !== undefined) throw validationFailed({ url: [problem] })
  const resolved = await resolveDestination(new URL(url), policy)
  // A name that does not resolve now is accepted: its attempts fail until it does.
  if ('refused' in resolved)
    throw validationFailed({
      url: [
        `${resolved.refused}; webhooks go to public addresses only (the operator allows others with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)`,
      ],
    })
}

async function endpointOf(db: Kysely<DB>, actor: Actor, id: number): Promise<repo.EndpointRow> {
  const row = await repo.findEndpoint(db, actor.tenantId, id)
  if (row === undefined) throw notFound(`No webhook endpoint ${id}.`)
  return row
}

export async function createEndpoint(db: Kysely<DB>, actor: Actor, policy: Policy, input: WebhookEndpointInput) {
  requireAny(actor, ...MANAGERS)
  await checkUrl(input.url, policy)
  return inTransaction(db, async (tx) => {
    if ((await repo.lockedEndpointCount(tx, actor.tenantId)) >= MAX_ENDPOINTS)
      throw conflict(
        `The company already has ${MAX_ENDPOINTS} webhook endpoints, the most it may have; delete one it no longer needs first.`,
      )
    const row = await repo.insertEndpoint(tx, {
      tenant_id: actor.tenantId,
      url: new URL(input.url).href,
      event_types: input.event_types ?? ['*'],
      description: input.description ?? '',
      enabled: input.enabled ?? true,
      secret: newSecret(),
    })
    await audit(tx, actor, {
      action: `${RESOURCE}.create`,
      resourceType: RESOURCE,
      resourceId: row.id,
      changes: audited(row),
    })
    return withSecret(row)
  })
}

export async function listEndpoints(
  db: Kysely<DB>,
  actor: Actor,
  query: WebhookEndpointListQuery,
): Promise<Page<WebhookEndpoint>> {
  requireAny(actor, ...MANAGERS)
  const page = await repo.pageOfEndpoints(db, actor.tenantId, query)
  return { ...page, rows: page.rows.map(toEndpoint) }
}

/** An endpoint with why and when it was disabled, for the console (the API's shape does not carry them). */
export interface EndpointState extends WebhookEndpoint {
  disabled_reason: string | null
  disabled_at: string | null
}

const toState = (row: repo.EndpointRow): EndpointState => ({
  ...toEndpoint(row),
  disabled_reason: row.enabled ? null : row.disabled_reason,
  disabled_at: row.enabled || row.disabled_at === null ? null : row.disabled_at.toISOString(),
})

/** Every endpoint of the tenant, oldest first, with its state: the console's list. */
export async function listEndpointStates(db: Kysely<DB>, actor: Actor): Promise<EndpointState[]> {
  requireAny(actor, ...MANAGERS)
  return (await repo.listEndpoints(db, actor.tenantId)).map(toState)
}

/** One endpoint with its state: the console's page. */
export async function getEndpointState(db: Kysely<DB>, actor: Actor, id: number): Promise<EndpointState> {
  requireAny(actor, ...MANAGERS)
  return toState(await endpointOf(db, actor, id))
}

export async function getEndpoint(db: Kysely<DB>, actor: Actor, id: number): Promise<WebhookEndpoint> {
  requireAny(actor, ...MANAGERS)
  return toEndpoint(await endpointOf(db, actor, id))
}

export async function updateEndpoint(
  db: Kysely<DB>,
  actor: Actor,
  policy: Policy,
  id: number,
  patch: WebhookEndpointPatch,
): Promise<WebhookEndpoint> {
  requireAny(actor, ...MANAGERS)
  await endpointOf(db, actor, id)
  if (patch.url !== undefined) await checkUrl(patch.url, policy)
  return inTransaction(db, async (tx) => {
    const row = await repo.updateEndpoint(tx, actor.tenantId, id, {
      ...patch,
      ...(patch.url !== undefined ? { url: new URL(patch.url).href } : {}),
    })
    if (row === undefined) throw notFound(`No webhook endpoint ${id}.`)
    await audit(tx, actor, { action: `${RESOURCE}.update`, resourceType: RESOURCE, resourceId: id, changes: patch })
    return toEndpoint(row)
  })
}

export async function deleteEndpoint(db: Kysely<DB>, actor: Actor, id: number): Promise<void> {
  requireAny(actor, ...MANAGERS)
  await inTransaction(db, async (tx) => {
    if (!(await repo.deleteEndpoint(tx, actor.tenantId, id))) throw notFound(`No webhook endpoint ${id}.`)
    await audit(tx, actor, { action: `${RESOURCE}.delete`, resourceType: RESOURCE, resourceId: id })
  })
}

export async function rotateSecret(db: Kysely<DB>, actor: Actor, id: number) {
  requireAny(actor, ...MANAGERS)
  const until = new Date(Date.now() + PREVIOUS_SECRET_HOURS * 3600_000)
  return inTransaction(db, async (tx) => {
    const row = await repo.rotateSecret(tx, actor.tenantId, id, newSecret(), until)
    if (row === undefined) throw notFound(`No webhook endpoint ${id}.`)
    await audit(tx, actor, { action: `${RESOURCE}.rotate_secret`, resourceType: RESOURCE, resourceId: id })
    return withSecret(row)
  })
}

export async function listDeliveries(
  db: Kysely<DB>,
  actor: Actor,
  endpointId: number,
  query: DeliveryListQuery,
): Promise<Page<WebhookDelivery>> {
  requireAny(actor, ...MANAGERS)
  await endpointOf(db, actor, endpointId)
  await numberEvents(db, actor.tenantId)
  const page = pageRequest(query)
  const result = await repo.pageOfDeliveries(db, actor.tenantId, endpointId, page.pageSize, page.offset)
  return { rows: result.rows.map(toDelivery), count: result.count, page }
}

/** A new attempt now; `scheduleLength` is the retry schedule's length (a finished delivery stays spent). */
export async function retryDelivery(
  db: Kysely<DB>,
  actor: Actor,
  endpointId: number,
  deliveryId: number,
  scheduleLength: number,
): Promise<void> {
  requireAny(actor, ...MANAGERS)
  await inTransaction(db, async (tx) => {
    if (!(await repo.retryDelivery(tx, actor.tenantId, endpointId, deliveryId, scheduleLength)))
      throw notFound(`No delivery ${deliveryId} of webhook endpoint ${endpointId}.`)
    await audit(tx, actor, {
      action: `${RESOURCE}.retry_delivery`,
      resourceType: RESOURCE,
      resourceId: endpointId,
      changes: { delivery: deliveryId },
    })
  })
}
