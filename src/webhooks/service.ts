/** Webhook endpoints and their deliveries: the rules (superuser or nav_setting), and rows → API shapes. */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { pageRequest, type Page } from '../core/list-query.ts'
import type { DB } from '../db/schema.ts'
import { eventId } from '../events/service.ts'
import { notFound, validationFailed } from '../core/problem.ts'
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

const MANAGERS = ['superuser', 'nav_setting'] as const

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
  event: eventId(row.event_xid, row.event_seq),
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
  const row = await repo.insertEndpoint(db, {
    tenant_id: actor.tenantId,
    url: new URL(input.url).href,
    event_types: input.event_types ?? ['*'],
    description: input.description ?? '',
    enabled: input.enabled ?? true,
    secret: newSecret(),
  })
  return withSecret(row)
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
  const row = await repo.updateEndpoint(db, actor.tenantId, id, {
    ...patch,
    ...(patch.url !== undefined ? { url: new URL(patch.url).href } : {}),
  })
  if (row === undefined) throw notFound(`No webhook endpoint ${id}.`)
  return toEndpoint(row)
}

export async function deleteEndpoint(db: Kysely<DB>, actor: Actor, id: number): Promise<void> {
  requireAny(actor, ...MANAGERS)
  if (!(await repo.deleteEndpoint(db, actor.tenantId, id))) throw notFound(`No webhook endpoint ${id}.`)
}

export async function rotateSecret(db: Kysely<DB>, actor: Actor, id: number) {
  requireAny(actor, ...MANAGERS)
  const until = new Date(Date.now() + PREVIOUS_SECRET_HOURS * 3600_000)
  const row = await repo.rotateSecret(db, actor.tenantId, id, newSecret(), until)
  if (row === undefined) throw notFound(`No webhook endpoint ${id}.`)
  return withSecret(row)
}

export async function listDeliveries(
  db: Kysely<DB>,
  actor: Actor,
  endpointId: number,
  query: DeliveryListQuery,
): Promise<Page<WebhookDelivery>> {
  requireAny(actor, ...MANAGERS)
  await endpointOf(db, actor, endpointId)
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
  if (!(await repo.retryDelivery(db, actor.tenantId, endpointId, deliveryId, scheduleLength)))
    throw notFound(`No delivery ${deliveryId} of webhook endpoint ${endpointId}.`)
}
