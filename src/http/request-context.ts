/**
 * What a request carries besides what Fastify gives it, declared in one place, and the order in which the
 * plugins that set it run. Each of those plugins names the ones it needs (`dependencies`), so Fastify refuses
 * to start if they are registered out of order.
 *
 * | field                   | set by                                        | when                          |
 * |-------------------------|-----------------------------------------------|-------------------------------|
 * | `id`                    | `genReqId` (http/request-id.ts)               | on arrival                    |
 * | `actor`                 | `bearer-auth` (/api/), the console's session  | onRequest                     |
 * | `db`                    | `idempotency`: the pool, or the idempotent request's own transaction | onRequest, preHandler |
 * | `idempotent`            | `idempotency`                                 | preHandler                    |
 * | `linkBase`, `mailBase`  | `public-links`, from the actor's tenant       | preHandler (after `actor`)    |
 * | timings                 | Fastify: `reply.elapsedTime`                  | —                             |
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ControlledTransaction, Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import type { DB } from '../db/schema.ts'
import type { Scope } from './idempotency.repository.ts'

/** An idempotent request under way: its key's scope, its request's fingerprint, the transaction it writes in. */
export interface Running {
  scope: Scope
  hash: string
  trx: ControlledTransaction<DB>
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is acting; set before any handler on /api/ and signed-in console pages. */
    actor: Actor
    /** The database this request works on: the idempotent request's own transaction, or the pool. */
    db: Kysely<DB>
    /** The idempotent request under way, if the request carries an Idempotency-Key. */
    idempotent: Running | undefined
    /** What the links of this request's responses start with: an origin, always absolute. */
    linkBase: string
    /** What links in e-mail this request causes start with (always absolute). */
    mailBase: string
  }
}

export const REQUEST_CONTEXT = 'request-context'

/** Declares the fields; the plugins above fill them in. */
export const requestContext = fp(
  async (app: FastifyInstance) => {
    // Set by their plugins before any handler reads them (the dependencies say which runs first).
    app.decorateRequest('actor', null, [])
    app.decorateRequest('db', null, [])
    app.decorateRequest('idempotent', undefined)
    app.decorateRequest('linkBase', '')
  },
  { name: REQUEST_CONTEXT, fastify: '5.x' },
)
