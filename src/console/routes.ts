/**
 * The web console at /console/: server-rendered pages on the same services as the API (no second set of
 * rules), for the people of a tenant — sign-in, set-password links, their account and sessions, users,
 * locations, vendors, and Settings → Applications. Forms post with a session-bound CSRF token, and any POST
 * from another origin is refused.
 */
import fs from 'node:fs'
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { attemptCounterFrom } from '../access/attempts.ts'
import type { LookupCache } from '../lookups/cache.ts'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { isDatabaseUnavailable } from '../http/errors.ts'
import { Problem } from '../http/problem.ts'
import type { ServerKeys } from '../keys.ts'
import { resumeSession } from '../sessions/service.ts'
import { accountPages } from './account.ts'
import { applicationPages } from './applications.ts'
import { authPages } from './auth.ts'
import {
  csrfFor,
  csrfMatches,
  hostOf,
  sendPage,
  sessionToken,
  type ConsoleDeps,
  type ConsoleSession,
} from './context.ts'
import { directoryPages } from './directory.ts'
import { html } from './html.ts'
import { notice, page } from './layout.ts'

const ASSETS = new Map(
  ['console.css', 'console.js'].map((name) => [
    name,
    fs.readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8'),
  ]),
)

function sameOrigin(origin: string, host: string): boolean {
  try {
    return new URL(origin).host === host
  } catch {
    return false
  }
}

/** An error as a page: what went wrong in words, never internals. */
function errorPage(error: FastifyError | Problem, request: FastifyRequest, reply: FastifyReply) {
  let status = error instanceof Problem ? error.status : (error.statusCode ?? 500)
  let text =
    error instanceof Problem
      ? error.detail
      : error.validation !== undefined
        ? 'The form or address is not valid.'
        : error.message
  if (error instanceof Problem)
    for (const [name, value] of Object.entries(error.extra.headers ?? {})) reply.header(name, value)
  if (isDatabaseUnavailable(error)) {
    status = 503
    text = 'The service cannot reach its database right now. Try again in a moment.'
  } else if (status >= 500) {
    request.log.error({ err: error }, 'console page failed')
    text = 'Something went wrong on our side. Try again; if it keeps happening, tell your administrator.'
  }
  // As the API's 503s do: say when to come back.
  if (status === 503) reply.header('retry-after', '1')
  const title =
    status === 403
      ? 'Not allowed'
      : status === 404
        ? 'Not found'
        : status === 503
          ? 'Unavailable'
          : 'Something went wrong'
  const session = (request.session as ConsoleSession | null) ?? undefined
  const errors = error instanceof Problem ? [error.extra.errors ?? []].flat() : []
  const details = errors.flatMap((fields) =>
    Object.entries(fields).map(([field, messages]) => html`<li>${field}: ${messages.join('; ')}</li>`),
  )
  const body = html`${notice(
      'alert',
      html`${text}${
        details.length > 0
          ? html`<ul>
              ${details}
            </ul>`
          : ''
      }`,
    )}
    <p><a href="/console/">Back to the console</a></p>`
  return sendPage(reply, page({ title, actor: session?.actor, csrf: session?.csrf }, body), status)
}

export const consoleRoutes =
  ({
    config,
    database,
    keys,
    lookups,
  }: {
    config: Readonly<Config>
    database: Database
    keys: ServerKeys
    lookups: LookupCache
  }): FastifyPluginAsync =>
  async (app: FastifyInstance) => {
    const deps: ConsoleDeps = {
      config,
      db: database.db,
      keys,
      lookups,
      attempts: attemptCounterFrom(config, 'sign-in'),
      limits: { idleMinutes: config.SESSION_IDLE_MINUTES, maxHours: config.SESSION_MAX_HOURS },
    }
    await app.register(cookie)
    await app.register(formbody, { bodyLimit: 16_384 })
    app.decorateRequest('session', null as unknown as ConsoleSession)
    app.setErrorHandler(errorPage)
    app.setNotFoundHandler((request, reply) =>
      errorPage(new Problem(404, 'Not Found', 'There is no such page in the console.'), request, reply),
    )

    // Before validation, so a signed-out or forged request is answered as such, not as a bad form.
    app.addHook('preValidation', async (request, reply) => {
      // A form posted from another site is refused whatever else it carries (login CSRF included).
      // `Origin: null` (a sandboxed frame, a data: URL, a redirect across sites) is as foreign as any other.
      const origin = request.headers.origin
      const changes = !['GET', 'HEAD', 'OPTIONS'].includes(request.method)
      const foreign =
        (origin !== undefined && !sameOrigin(origin, request.host)) ||
        request.headers['sec-fetch-site'] === 'cross-site'
      if (changes && foreign)
        throw new Problem(403, 'Forbidden', 'This form was sent from another site; it was not accepted.')
      if (request.routeOptions.config.publicPage === true) return
      const token = sessionToken(request)
      const live =
        token === undefined
          ? undefined
          : await resumeSession(deps.db, token, deps.limits, hostOf(config, request), request.id)
      if (live === undefined || token === undefined) {
        const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : ''
        return reply.redirect(`/console/sign-in${next}`, 303)
      }
      request.session = { id: live.id, token, actor: live.actor, csrf: csrfFor(keys, token) }
      if (
        request.method === 'POST' &&
        !csrfMatches(request.session.csrf, (request.body as Record<string, unknown> | undefined)?._csrf)
      ) {
        throw new Problem(
          403,
          'Forbidden',
          'This form has expired or did not come from the console. Reload the page and try again.',
        )
      }
    })

    app.get('/assets/:name', { config: { publicPage: true }, schema: { hide: true } }, async (request, reply) => {
      const name = (request.params as { name: string }).name
      const body = ASSETS.get(name)
      if (body === undefined) throw new Problem(404, 'Not Found', 'No such file.')
      return reply
        .header('cache-control', 'public, max-age=300')
        .type(name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8')
        .send(body)
    })
    app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/account', 303))

    authPages(app, deps)
    accountPages(app, deps)
    applicationPages(app, deps)
    directoryPages(app, deps)
  }
