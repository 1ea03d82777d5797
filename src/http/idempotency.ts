/**
 * `Idempotency-Key` on POST under /api/: the first request with a key runs and its response is stored; the
 * same key with the same request within 24 h gets that response again (header `Idempotent-Replayed: true`)
 * and writes nothing; the same key with a different request is 422; while the first still runs, 409. Keys
 * are per application and live in the database, so every process sharing it agrees. Only a success is
 * stored: an error wrote nothing, so the key is released and a retry with it runs again. Responses that
 * carry a secret (new client credentials) are never stored: on those routes the header is ignored.
 */
import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import * as repo from './idempotency.repository.ts'
import { badRequest, conflict, unprocessable } from './problem.ts'

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000
const REPLAYED_HEADERS = ['location', 'etag']

/** While the first request runs its key is held this long at most, so a crashed process frees it. */
const RUNNING_TTL_MS = 5 * 60_000

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string
  }
  interface FastifyContextConfig {
    /** The response carries a secret: never store it, so Idempotency-Key is ignored on this route. */
    secretResponse?: boolean
  }
}

export function idempotency(app: FastifyInstance, db: Kysely<DB>): void {
  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key']
    if (request.method !== 'POST' || key === undefined || request.routeOptions.config.secretResponse === true) return
    if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.')
    const scope = { tenantId: request.actor.tenantId, applicationId: request.actor.applicationId!, key }
    const hash = createHash('sha256').update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`).digest('hex')
    if (await repo.claim(db, scope, hash, RUNNING_TTL_MS)) {
      request.idempotencyKey = key
      return
    }
    const first = await repo.find(db, scope)
    if (first === undefined || first.status === 'running') {
      throw conflict('A request with this Idempotency-Key is still being processed; retry shortly.')
    }
    if (first.request_hash !== hash) throw unprocessable('This Idempotency-Key was already used with a different request.')
    for (const [name, value] of Object.entries(first.response_headers ?? {})) reply.header(name, value)
    if (first.response_type !== null) reply.type(first.response_type)
    return reply.header('idempotent-replayed', 'true').code(first.response_status ?? 200).send(first.response_body ?? '')
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.idempotencyKey
    if (key === undefined) return payload
    const scope = { tenantId: request.actor.tenantId, applicationId: request.actor.applicationId!, key }
    if (reply.statusCode >= 400 || (payload !== null && payload !== undefined && typeof payload !== 'string')) {
      await repo.release(db, scope)
      return payload
    }
    const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (reply.hasHeader(name) ? [[name, String(reply.getHeader(name))]] : [])))
    const type = reply.getHeader('content-type')
    await repo.complete(db, scope, { status: reply.statusCode, type: type === undefined ? null : String(type), headers, body: payload ?? '' }, IDEMPOTENCY_TTL_MS)
    return payload
  })
}
