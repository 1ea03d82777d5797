/**
 * `Idempotency-Key` on POST under /api/: the first request with a key runs; the same key with the same
 * request within 24 h gets its response again (header `Idempotent-Replayed: true`) and writes nothing; the
 * same key with a different request is 422; while the first still runs, 409.
 *
 * Exactly once, by construction: the request runs in one database transaction, held open from the moment
 * the key is taken until the response is stored — and the write, its audit entry and the stored response
 * commit together. A crash at any instant leaves either nothing (the retry performs the write) or the
 * write with its stored response (the retry replays it); there is no window and no time-based hold. The
 * key is taken with a transaction-scoped advisory lock, so a concurrent duplicate, in any process, is told
 * 409 at once. Only a success is stored: an error rolls everything back and a retry runs again. Responses
 * that carry a secret (new client credentials) are never stored: on those routes the header is ignored.
 *
 * A route that streams its body (a multipart upload) has no parsed body to fingerprint when this hook runs:
 * it marks itself `streamedBody`, reads the body, and then calls `claimStreamed` with a fingerprint of what it
 * read (for a file, its SHA-256 and the other fields), which replays, refuses or takes the key exactly as
 * the hook does for a parsed body — and holds no transaction while the body is still arriving.
 */
import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Kysely } from 'kysely'
import { configure } from 'safe-stable-stringify'
import type { DB } from '../db/schema.ts'
import * as repo from './idempotency.repository.ts'
import { badRequest, conflict, unprocessable } from '../core/problem.ts'
import { REQUEST_CONTEXT, type Running } from './request-context.ts'

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000
const REPLAYED_HEADERS = ['location', 'etag']

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The response carries a secret: never store it, so Idempotency-Key is ignored on this route. */
    secretResponse?: boolean
    /** The handler reads the body as a stream and calls `claimStreamed` once it has (see above). */
    streamedBody?: boolean
  }
}

function replay(reply: FastifyReply, stored: NonNullable<Awaited<ReturnType<typeof repo.findLive>>>) {
  for (const [name, value] of Object.entries(stored.response_headers ?? {})) reply.header(name, value)
  if (stored.response_type !== null) reply.type(stored.response_type)
  return reply
    .header('idempotent-replayed', 'true')
    .code(stored.response_status ?? 200)
    .send(stored.response_body ?? '')
}

/**
 * The body as the fingerprint sees it: JSON with every object's keys sorted, so the same body with its keys
 * in another order is the same request (replayed, not 422).
 */
const canonicalJson = configure({ deterministic: true, bigint: false, circularValue: Error })

/**
 * The request's target as the fingerprint sees it: the path without its trailing slash (both spellings are
 * the same endpoint, DECISIONS "Paths") and the query's parameters in sorted order, so `/receipts` and
 * `/receipts/` with the same key and body are one request (replayed, not 422).
 */
export function canonicalTarget(url: string): string {
  const query = url.indexOf('?')
  const path = (query === -1 ? url : url.slice(0, query)).replace(/(.)\/+$/, '$1')
  if (query === -1) return path
  const params = new URLSearchParams(url.slice(query + 1))
  params.sort()
  const sorted = params.toString()
  return sorted === '' ? path : `${path}?${sorted}`
}

/** Ends the request's transaction (once): commit to keep what it wrote, otherwise roll back. */
async function finish(running: Running, commit: boolean): Promise<void> {
  if (commit) await running.trx.commit().execute()
  else await running.trx.rollback().execute()
}

/** The key's scope when this request takes part (a POST with a valid key); 400 for a malformed key. */
function scopeOf(request: FastifyRequest): repo.Scope | undefined {
  const key = request.headers['idempotency-key']
  if (request.method !== 'POST' || key === undefined || request.routeOptions.config.secretResponse === true)
    return undefined
  if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.')
  }
  return { tenantId: request.actor.tenantId, applicationId: request.actor.applicationId!, key }
}

const fingerprint = (request: FastifyRequest, body: string) =>
  createHash('sha256')
    .update(`${request.method} ${canonicalTarget(request.url)}\n${body}`)
    .digest('hex')

/**
 * Replays the stored response (true), refuses (422 another request, 409 still running), or takes the key and
 * runs the rest of the request in its own transaction (false).
 */
async function claim(
  db: Kysely<DB>,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: repo.Scope,
  hash: string,
): Promise<boolean> {
  const check = (stored: Awaited<ReturnType<typeof repo.findLive>>) => {
    if (stored === undefined) return undefined
    if (stored.request_hash !== hash)
      throw unprocessable('This Idempotency-Key was already used with a different request.')
    return stored
  }
  const done = check(await repo.findLive(db, scope))
  if (done !== undefined) {
    replay(reply, done)
    return true
  }

  const trx = await db.startTransaction().execute()
  try {
    if (!(await repo.tryLock(trx, scope)))
      throw conflict('A request with this Idempotency-Key is still being processed; retry shortly.')
    // It may have finished between the first look and the lock.
    const finished = check(await repo.findLive(trx, scope))
    if (finished !== undefined) {
      await trx.rollback().execute()
      replay(reply, finished)
      return true
    }
  } catch (error) {
    await trx
      .rollback()
      .execute()
      .catch(() => undefined)
    throw error
  }
  request.idempotent = { scope, hash, trx }
  request.db = trx
  return false
}

/**
 * For a `streamedBody` route, once its handler has read the body: `body` is a fingerprint of it (any string
 * that differs when the request does). True when the stored response was replayed (the handler returns
 * `reply` and does nothing more); false when the request runs, on `request.db`, as the key's one write.
 * Without an Idempotency-Key it does nothing and returns false.
 */
export async function claimStreamed(request: FastifyRequest, reply: FastifyReply, body: string): Promise<boolean> {
  const scope = scopeOf(request)
  if (scope === undefined || request.idempotent !== undefined) return false
  return claim(request.db, request, reply, scope, fingerprint(request, body))
}

async function plugin(app: FastifyInstance, { db }: { db: Kysely<DB> }): Promise<void> {
  app.addHook('onRequest', async (request) => {
    request.db = db
  })

  app.addHook('preHandler', async (request, reply) => {
    const scope = scopeOf(request)
    if (scope === undefined || request.routeOptions.config.streamedBody === true) return
    const hash = fingerprint(request, canonicalJson(request.body ?? null))
    if (await claim(db, request, reply, scope, hash)) return reply
  })

  // The response is stored, and everything committed, before a byte of it is sent.
  app.addHook('onSend', async (request, reply, payload) => {
    const running = request.idempotent
    if (running === undefined) return payload
    request.idempotent = undefined
    request.db = db
    const success = reply.statusCode < 400 && (payload === null || payload === undefined || typeof payload === 'string')
    if (!success) {
      await finish(running, false)
      return payload
    }
    try {
      const headers = Object.fromEntries(
        REPLAYED_HEADERS.flatMap((name) => (reply.hasHeader(name) ? [[name, String(reply.getHeader(name))]] : [])),
      )
      const type = reply.getHeader('content-type')
      const response = {
        status: reply.statusCode,
        type: type === undefined ? null : String(type),
        headers,
        body: payload ?? '',
      }
      await repo.store(running.trx, running.scope, running.hash, response, IDEMPOTENCY_TTL_MS)
      await finish(running, true)
    } catch (error) {
      await finish(running, false).catch(() => undefined)
      // Nothing was committed: the client must not see a success.
      reply.removeHeader('location')
      reply.removeHeader('etag')
      throw error
    }
    return payload
  })

  // A request that ends without a response (client gone, hook failure) still ends its transaction.
  const abandon = async (request: { idempotent?: Running | undefined }) => {
    const running = request.idempotent
    if (running === undefined) return
    request.idempotent = undefined
    await finish(running, false).catch(() => undefined)
  }
  app.addHook('onResponse', abandon)
  app.addHook('onRequestAbort', abandon)
}

/** Sets `request.db`, and runs POSTs with an Idempotency-Key exactly once (see the top of this file). */
export const idempotency = fp(plugin, { name: 'idempotency', dependencies: [REQUEST_CONTEXT, 'bearer-auth'] })
