/**
 * SCIM 2.0 at /scim/v2/ (RFC 7643/7644) for the tenant's identity provider: its own bearer tokens, bodies as
 * application/scim+json (plain JSON accepted too), and every refusal in the SCIM error schema. Discovery
 * (ServiceProviderConfig, ResourceTypes, Schemas), Users and Groups; writes act for the tenant's owner.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { providerActor, type Actor } from '../access/actor.ts'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { tenantOfHost } from '../http/host.ts'
import { allowedMethods } from '../http/not-found.ts'
import { mailBase } from '../http/public-url.ts'
import type { ServerKeys } from '../keys.ts'
import { discovery, listOf, MAX_COUNT, serviceProviderConfig } from './discovery.ts'
import { scimError } from './error-handler.ts'
import { errorBody, invalidValue, ScimError, scimNotFound, sendScim } from './errors.ts'
import { parseFilter } from './filter.ts'
import * as groups from './groups.service.ts'
import type { Paging } from './repository.ts'
import { tokenCaller } from './tokens.service.ts'
import * as users from './users.service.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The identity provider acting through a SCIM token (SCIM routes only). */
    scimActor: Actor
  }
}

type Query = Record<string, unknown>
const MAX_START = 2_147_483_647
const hide = { schema: { hide: true } }

function pagingOf(query: Query): Paging {
  const number = (name: string, fallback: number) => {
    const raw = query[name]
    if (raw === undefined || raw === '') return fallback
    if (typeof raw !== 'string' || !/^[-+]?[0-9]{1,400}$/.test(raw))
      throw invalidValue(`${name} must be a whole number.`)
    return Number(raw)
  }
  // RFC 7644 §3.4.2.4: a startIndex below 1 is 1; a negative count is 0; above the maximum, the maximum.
  // A startIndex past any possible row is an empty page (kept within what an SQL OFFSET takes).
  return {
    startIndex: Math.min(MAX_START, Math.max(1, number('startIndex', 1))),
    count: Math.min(MAX_COUNT, Math.max(0, number('count', 100))),
  }
}

const filterOf = (query: Query, allowed: readonly string[]) =>
  parseFilter(typeof query.filter === 'string' ? query.filter : undefined, allowed)

const withoutMembers = (query: Query) =>
  typeof query.excludedAttributes === 'string' &&
  query.excludedAttributes.split(',').some((a) => a.trim().toLowerCase() === 'members')

const objectBody = (body: unknown): Record<string, unknown> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ScimError(400, 'The body must be a JSON object.', 'invalidSyntax')
  return body as Record<string, unknown>
}

/** A request the HTTP layer refused before any route (a path that is not valid percent-encoding), in SCIM's error schema. */
export const scimRequestError = (reply: FastifyReply, detail: string) =>
  sendScim(reply, 400, errorBody(new ScimError(400, detail)))

export const scimRoutes =
  (deps: {
    config: Readonly<Config>
    database: Database
    keys: ServerKeys
    /** The port the service listens on, if it listens (SCIM's app is mounted on the service's: http/mount.ts). */
    listeningPort: () => number | undefined
  }): FastifyPluginAsync =>
  async (app: FastifyInstance) => {
    const { config, database, keys } = deps
    const db = database.db
    const peppers = [keys.pepper, ...(keys.previousPeppers ?? [])]
    app.addContentTypeParser('application/scim+json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'))
    app.decorateRequest('scimActor', null, [])
    app.setErrorHandler(scimError)
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0]!
      // The app's route table (http/not-found.ts) holds SCIM's routes too.
      const allowed = allowedMethods(app.routeTable, path)
      if (allowed.length === 0)
        return sendScim(reply, 404, errorBody(scimNotFound(`There is no SCIM endpoint ${path}.`)))
      reply.header('allow', allowed.join(', '))
      const detail = `${path} does not take ${request.method}; use ${allowed.join(', ')}.`
      return sendScim(reply, 405, errorBody(new ScimError(405, detail)))
    })
    app.addHook('onRequest', async (request, reply) => {
      const header = request.headers.authorization ?? ''
      const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1]
      const caller = token === undefined ? undefined : await tokenCaller(db, peppers, token)
      const host = tenantOfHost(config.BASE_DOMAIN, request.host)
      if (caller === undefined || (host.mode === 'multi' && host.domain !== caller.domain)) {
        reply.header('www-authenticate', 'Bearer realm="scim"')
        throw new ScimError(401, 'A valid SCIM bearer token is required (Settings → Single sign-on makes one).')
      }
      request.scimActor = providerActor({ id: caller.tenantId, domain: caller.domain }, 'scim', request.id)
    })
    const baseOf = (request: FastifyRequest) =>
      `${mailBase(config, request.scimActor.domain, deps.listeningPort())}/scim/v2`

    app.get('/ServiceProviderConfig', hide, async (request, reply) =>
      sendScim(reply, 200, serviceProviderConfig(baseOf(request))),
    )
    app.get('/ResourceTypes', hide, async (request, reply) => {
      const all = discovery.resourceTypes(baseOf(request))
      return sendScim(reply, 200, listOf(all))
    })
    app.get<{ Params: { id: string } }>('/ResourceTypes/:id', hide, async (request, reply) => {
      const found = discovery.resourceType(baseOf(request), request.params.id)
      if (found === undefined) throw scimNotFound(`No resource type ${request.params.id}.`)
      return sendScim(reply, 200, found)
    })
    app.get('/Schemas', hide, async (request, reply) =>
      sendScim(reply, 200, listOf(discovery.schemas(baseOf(request)))),
    )
    app.get<{ Params: { id: string } }>('/Schemas/:id', hide, async (request, reply) => {
      const found = discovery.schema(baseOf(request), request.params.id)
      if (found === undefined) throw scimNotFound(`No schema ${request.params.id}.`)
      return sendScim(reply, 200, found)
    })

    app.get('/Users', hide, async (request, reply) => {
      const query = request.query as Query
      const filter = filterOf(query, ['userName', 'externalId', 'emails.value'])
      return sendScim(
        reply,
        200,
        await users.listScimUsers(db, request.scimActor, baseOf(request), filter, pagingOf(query)),
      )
    })
    app.post('/Users', hide, async (request, reply) => {
      const created = await users.createScimUser(db, request.scimActor, baseOf(request), objectBody(request.body))
      reply.header('location', created.meta.location)
      return sendScim(reply, 201, created)
    })
    app.get<{ Params: { id: string } }>('/Users/:id', hide, async (request, reply) =>
      sendScim(reply, 200, await users.getScimUser(db, request.scimActor, baseOf(request), request.params.id)),
    )
    app.put<{ Params: { id: string } }>('/Users/:id', hide, async (request, reply) =>
      sendScim(
        reply,
        200,
        await users.replaceScimUser(
          db,
          request.scimActor,
          baseOf(request),
          request.params.id,
          objectBody(request.body),
        ),
      ),
    )
    app.patch<{ Params: { id: string } }>('/Users/:id', hide, async (request, reply) =>
      sendScim(
        reply,
        200,
        await users.patchScimUser(db, request.scimActor, baseOf(request), request.params.id, objectBody(request.body)),
      ),
    )
    app.delete<{ Params: { id: string } }>('/Users/:id', hide, async (request, reply) => {
      await users.deactivateScimUser(db, request.scimActor, baseOf(request), request.params.id)
      return reply.code(204).send()
    })

    app.get('/Groups', hide, async (request, reply) => {
      const query = request.query as Query
      const filter = filterOf(query, ['displayName', 'externalId'])
      const list = await groups.listScimGroups(
        db,
        request.scimActor,
        baseOf(request),
        filter,
        pagingOf(query),
        !withoutMembers(query),
      )
      return sendScim(reply, 200, list)
    })
    app.post('/Groups', hide, async (request, reply) => {
      const created = await groups.createScimGroup(db, request.scimActor, baseOf(request), objectBody(request.body))
      reply.header('location', created.meta.location)
      return sendScim(reply, 201, created)
    })
    app.get<{ Params: { id: string } }>('/Groups/:id', hide, async (request, reply) => {
      const query = request.query as Query
      const group = await groups.getScimGroup(
        db,
        request.scimActor,
        baseOf(request),
        request.params.id,
        !withoutMembers(query),
      )
      return sendScim(reply, 200, group)
    })
    app.put<{ Params: { id: string } }>('/Groups/:id', hide, async (request, reply) =>
      sendScim(
        reply,
        200,
        await groups.replaceScimGroup(
          db,
          request.scimActor,
          baseOf(request),
          request.params.id,
          objectBody(request.body),
        ),
      ),
    )
    app.patch<{ Params: { id: string } }>('/Groups/:id', hide, async (request, reply) =>
      sendScim(
        reply,
        200,
        await groups.patchScimGroup(
          db,
          request.scimActor,
          baseOf(request),
          request.params.id,
          objectBody(request.body),
        ),
      ),
    )
    app.delete<{ Params: { id: string } }>('/Groups/:id', hide, async (request, reply) => {
      await groups.deleteScimGroup(db, request.scimActor, request.params.id)
      return reply.code(204).send()
    })
  }
