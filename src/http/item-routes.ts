/**
 * The routes of one item, declared the one way every resource declares them (beside `listRoute`, list.ts):
 * `createRoute` answers 201 with `Location` and the `{metadata: {}, data}` envelope; `itemRoute` answers a
 * read, a replace or an action on one item with the envelope. Both are `accessNeutral` unless told otherwise
 * (their writes change nothing a cache holds; see changes.ts), and POSTs take an `Idempotency-Key` like every
 * other (idempotency.ts). The handler gets what the route needs — the actor, the database, the checked
 * params, body and headers, where links start — and returns the item; services know nothing of HTTP.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import type { Kysely } from 'kysely'
import { Type, type Static, type TObject, type TSchema } from 'typebox'
import type { Actor } from '../access/actor.ts'
import type { DB } from '../db/schema.ts'
import type { Page } from '../core/list-query.ts'
import { ItemEnvelope, listRoute } from './list.ts'

type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0]

/** What a handler is given: the checked parts of the request (params, body, headers as their schemas say). */
export interface ItemContext<P, B, H> {
  actor: Actor
  db: Kysely<DB>
  params: P
  body: B
  headers: H
  /** Where the links of e-mail this request sends start. */
  mailBase: string
  request: FastifyRequest
  reply: FastifyReply
}

interface Common<P extends TObject | undefined, B extends TSchema | undefined, H extends TObject | undefined> {
  summary: string
  operationId: string
  tags: string[]
  params?: P
  body?: B
  headers?: H
  /** Default true: the write changes nothing that the access cache holds. */
  accessNeutral?: boolean
}
type Of<T> = T extends TSchema ? Static<T> : undefined

function context<P, B, H>(request: FastifyRequest, reply: FastifyReply): ItemContext<P, B, H> {
  return {
    actor: request.actor,
    db: request.db,
    params: request.params as P,
    body: request.body as B,
    headers: request.headers as H,
    mailBase: request.mailBase,
    request,
    reply,
  }
}

function schemaOf(
  options: Common<TObject | undefined, TSchema | undefined, TObject | undefined>,
  response: Record<number, TSchema>,
): FastifySchema {
  const { summary, operationId, tags, params, body, headers } = options
  return {
    summary,
    operationId,
    tags,
    ...(params === undefined ? {} : { params }),
    ...(body === undefined ? {} : { body }),
    ...(headers === undefined ? {} : { headers }),
    response,
  }
}

/** `POST url`: creates an item; 201, `Location: <api>/<url><id>/`, the envelope. */
export function createRoute<
  I extends TObject,
  P extends TObject | undefined = undefined,
  B extends TSchema | undefined = undefined,
  H extends TObject | undefined = undefined,
>(
  app: TypeBoxApp,
  url: string,
  options: Common<P, B, H> & {
    item: I
    create: (c: ItemContext<Of<P>, Of<B>, Of<H>>) => Promise<Static<I> & { id: number }>
  },
): void {
  app.route({
    method: 'POST',
    url,
    config: { accessNeutral: options.accessNeutral ?? true },
    schema: schemaOf(options, { 201: ItemEnvelope(options.item) }),
    handler: async (request, reply) => {
      const created = await options.create(context(request, reply))
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api${url}${created.id}/`)
        .send({ metadata: {}, data: created })
    },
  })
}

/** `method url` on one item (a read, a replace, an action): 200 and the envelope. */
export function itemRoute<
  I extends TSchema,
  P extends TObject | undefined = undefined,
  B extends TSchema | undefined = undefined,
  H extends TObject | undefined = undefined,
>(
  app: TypeBoxApp,
  method: 'GET' | 'PUT' | 'PATCH' | 'POST',
  url: string,
  options: Common<P, B, H> & {
    item: I
    run: (c: ItemContext<Of<P>, Of<B>, Of<H>>) => Promise<Static<I>>
  },
): void {
  app.route({
    method,
    url,
    ...(method === 'GET' ? {} : { config: { accessNeutral: options.accessNeutral ?? true } }),
    schema: schemaOf(options, { 200: ItemEnvelope(options.item) }),
    handler: async (request, reply) => ({ metadata: {}, data: await options.run(context(request, reply)) }),
  })
}

/** `DELETE url` of one item: 204 with no body. */
export function deleteRoute<P extends TObject>(
  app: TypeBoxApp,
  url: string,
  options: Common<P, undefined, undefined> & {
    run: (c: ItemContext<Static<P>, undefined, undefined>) => Promise<void>
  },
): void {
  app.route({
    method: 'DELETE',
    url,
    config: { accessNeutral: options.accessNeutral ?? true },
    schema: schemaOf(options, { 204: Type.Null() }),
    handler: async (request, reply) => {
      await options.run(context(request, reply))
      return reply.code(204).send(null)
    },
  })
}

/**
 * A collection's three routes, as every document declares them: `GET base` (a list with `query`'s filters,
 * listRoute), `POST base` (createRoute) and `GET base:id/` (itemRoute). Each is summarised in its own words.
 */
export function collectionRoutes<I extends TObject, Q extends TObject, P extends TObject, B extends TSchema>(
  app: TypeBoxApp,
  base: string,
  options: {
    tags: string[]
    item: I
    query: Q
    params: P
    body: B
    list: { summary: string; run: (c: { actor: Actor; db: Kysely<DB>; query: Static<Q> }) => Promise<Page<Static<I>>> }
    create: {
      summary: string
      operationId: string
      run: (c: ItemContext<undefined, Of<B>, undefined>) => Promise<Static<I> & { id: number }>
    }
    get: {
      summary: string
      operationId: string
      run: (c: ItemContext<Of<P>, undefined, undefined>) => Promise<Static<I>>
    }
  },
): void {
  const { tags, item, query, params, body, list, create, get } = options
  listRoute(app, base, { summary: list.summary, tags, query, item, list: list.run })
  createRoute(app, base, {
    summary: create.summary,
    operationId: create.operationId,
    tags,
    body,
    item,
    create: create.run,
  })
  itemRoute(app, 'GET', `${base}:id/`, {
    summary: get.summary,
    operationId: get.operationId,
    tags,
    params,
    item,
    run: get.run,
  })
}
