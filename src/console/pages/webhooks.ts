/**
 * Settings → Webhooks: add an endpoint (its signing secret shown once, POST → redirect → GET), enable and
 * disable, rotate the secret (shown once), delete (after a confirmation), and each endpoint's deliveries with
 * a retry — through the webhook service, with the API's own validation of the body, for users with
 * `superuser` only, as in the API (others see "not allowed").
 */
import { Type } from 'typebox'
import { requireAny } from '../../access/actor.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { WebhookEndpointInput } from '../../webhooks/schema.ts'
import * as webhooks from '../../webhooks/service.ts'
import type { Policy } from '../../webhooks/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { openFlash, sealFlash } from '../flash.ts'
import type { FormState, Values } from '../views/forms.ts'
import { notice } from '../views/layout.ts'
import {
  deleteWebhookView,
  secretView,
  WEBHOOK_BASE,
  WEBHOOK_LABELS,
  webhookView,
  webhooksView,
} from '../views/webhooks.ts'
import { attempt, errorsFor, flashOf, FormBody, Id, valuesOf } from './forms.ts'

const FIELDS = Object.keys(WEBHOOK_LABELS)
const DELIVERIES_PER_PAGE = 20
const flash = flashOf({
  enabled: 'The endpoint is enabled: new events are delivered to it again.',
  disabled: 'The endpoint is disabled: it gets no deliveries, and events meanwhile are not queued for it.',
  deleted: 'The endpoint is deleted.',
  retried: 'A new attempt of the delivery is on its way.',
})
const Done = Type.Object({
  done: Type.Optional(Type.String({ maxLength: 20 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
})
const DeliveryParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  delivery_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
})

const checkCreate = bodyChecker(WebhookEndpointInput)

/** The API body the form stands for: the event types as a list (empty: every event). */
function bodyOf(values: Values): Record<string, unknown> {
  const types = (values.event_types ?? '')
    .split(/[,\s]+/)
    .map((t) => t.trim())
    .filter((t) => t !== '')
  return {
    url: (values.url ?? '').trim(),
    event_types: types.length === 0 ? ['*'] : types,
    description: (values.description ?? '').trim(),
  }
}

/** A secret sealed for the page at `path` (see flash.ts), if one came with this GET. */
function secretFor(
  deps: ConsoleDeps,
  request: Parameters<typeof openFlash>[1],
  reply: Parameters<typeof openFlash>[2],
  path: string,
) {
  const value = openFlash(deps.keys, request, reply, path)
  return value !== undefined && typeof value.secret === 'string'
    ? secretView(value.secret, typeof value.title === 'string' ? value.title : 'Signing secret')
    : ''
}

export function webhookPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db, config } = deps
  const policy: Policy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.url?.startsWith(`/console/settings/webhooks`) === true)
      requireAny(request.session.actor, 'superuser')
  })
  const list = async (session: ConsoleSession, form: FormState, top: ReturnType<typeof notice> | string = '') =>
    webhooksView(await webhooks.listEndpointStates(db, session.actor), form, session, top)
  const endpoint = (session: ConsoleSession, id: number) => webhooks.getEndpointState(db, session.actor, id)

  app.get('/settings/webhooks', { schema: { hide: true, querystring: Done } }, async (request, reply) => {
    const secret = secretFor(deps, request, reply, WEBHOOK_BASE)
    const done = flash(request.query.done)
    return sendPage(
      reply,
      await list(request.session, { values: {}, errors: {} }, done === undefined ? secret : notice('status', done)),
    )
  })

  app.post('/settings/webhooks', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const values = valuesOf(request.body, FIELDS)
    const checked = checkCreate(bodyOf(values))
    const result = checked.ok
      ? await attempt(values, FIELDS, () => webhooks.createEndpoint(db, request.session.actor, policy, checked.value))
      : { ok: false as const, form: { values, errors: errorsFor(checked.errors, FIELDS) } }
    if (!result.ok) return sendPage(reply, await list(request.session, result.form), 400)
    const path = `${WEBHOOK_BASE}/${result.value.id}`
    sealFlash(deps.keys, request, reply, path, { secret: result.value.secret, title: 'Your new endpoint' })
    return reply.redirect(path, 303)
  })

  app.get(
    '/settings/webhooks/:id',
    { schema: { hide: true, params: Id, querystring: Done } },
    async (request, reply) => {
      const { id } = request.params
      const e = await endpoint(request.session, id)
      const deliveries = await webhooks.listDeliveries(db, request.session.actor, id, {
        page: request.query.page ?? 1,
        page_size: DELIVERIES_PER_PAGE,
      })
      const done = flash(request.query.done)
      const top = done === undefined ? secretFor(deps, request, reply, `${WEBHOOK_BASE}/${id}`) : notice('status', done)
      return sendPage(reply, webhookView(e, deliveries, request.session, top))
    },
  )

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(`/settings/webhooks/:id/${action}`, { schema: { hide: true, params: Id } }, async (request, reply) => {
      await webhooks.updateEndpoint(db, request.session.actor, policy, request.params.id, { enabled })
      return reply.redirect(`${WEBHOOK_BASE}/${request.params.id}?done=${action}d`, 303)
    })
  }

  app.post('/settings/webhooks/:id/rotate', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const rotated = await webhooks.rotateSecret(db, request.session.actor, request.params.id)
    const path = `${WEBHOOK_BASE}/${rotated.id}`
    sealFlash(deps.keys, request, reply, path, {
      secret: rotated.secret,
      title: 'New signing secret (the old one keeps signing beside it for 24 hours)',
    })
    return reply.redirect(path, 303)
  })

  app.get('/settings/webhooks/:id/delete', { schema: { hide: true, params: Id } }, async (request, reply) =>
    sendPage(reply, deleteWebhookView(await endpoint(request.session, request.params.id), request.session)),
  )

  app.post('/settings/webhooks/:id/delete', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await webhooks.deleteEndpoint(db, request.session.actor, request.params.id)
    return reply.redirect(`${WEBHOOK_BASE}?done=deleted`, 303)
  })

  app.post(
    '/settings/webhooks/:id/deliveries/:delivery_id/retry',
    { schema: { hide: true, params: DeliveryParams } },
    async (request, reply) => {
      const { id, delivery_id } = request.params
      await webhooks.retryDelivery(db, request.session.actor, id, delivery_id, config.webhookRetryMs.length)
      return reply.redirect(`${WEBHOOK_BASE}/${id}?done=retried`, 303)
    },
  )
}
