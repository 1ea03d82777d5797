/**
 * The web console at /console/: server-rendered pages on the same services as the API (no second set of
 * rules), for the people of a tenant — sign-in, set-password links, their account and sessions, users,
 * locations, vendors, and Settings → Applications and Webhooks. Forms post with a session-bound CSRF token (an upload
 * form's is the first part of its multipart body: multipart.ts), and any POST from another origin is refused.
 */
import fs from 'node:fs'
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { attemptCounterFrom } from '../access/attempts.ts'
import type { LookupCache } from '../lookups/cache.ts'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { concurrentWriteConflict, fieldErrors, isDatabaseUnavailable } from '../http/errors.ts'
import { Problem, type FieldErrors } from '../core/problem.ts'
import type { ServerKeys } from '../keys.ts'
import { resumeSession } from '../sessions/service.ts'
import { accountPages } from './pages/account.ts'
import { homePages } from './pages/home.ts'
import { applicationPages } from './pages/applications.ts'
import { authPages } from './pages/auth.ts'
import {
  csrfFor,
  csrfMatches,
  hostOf,
  sendPage,
  sessionToken,
  type ConsoleApp,
  type ConsoleDeps,
  type ConsoleSession,
} from './context.ts'
import { userPages } from './pages/users.ts'
import { userEditPages } from './pages/user-edit.ts'
import { vendorImportPages } from './pages/vendor-import.ts'
import { vendorPages } from './pages/vendors.ts'
import { locationPages } from './pages/locations.ts'
import { outboxPages } from './pages/outbox.ts'
import { webhookPages } from './pages/webhooks.ts'
import { ssoPages } from './pages/sso.ts'
import { errorView } from './views/errors.ts'
import { approvalPages } from './pages/approvals.ts'
import { billPages } from './pages/bills.ts'
import { budgetPages } from './pages/budgets.ts'
import { budgetCheckPages } from './pages/budget-check.ts'
import { paymentPages } from './pages/payments.ts'
import { expensePages } from './pages/expenses.ts'
import { reportPages } from './pages/reports.ts'
import { prepareMenu } from './pages/menu.ts'
import { orderPages } from './pages/orders.ts'
import { receiptPages } from './pages/receipts.ts'
import { requestPages } from './pages/requests.ts'
import { setupPages } from './pages/setup.ts'
import { attachmentPages } from './pages/attachments.ts'
import { expenseReceiptPages } from './pages/expense-receipts.ts'
import { csrfPart, isUploadForm } from './multipart.ts'

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

/**
 * The fields a refused form or address names (its schema's errors, in the API's sentences), so the page says
 * which field to fix — a 300-character e-mail in the invite form reads "email: must be at most 254 characters".
 */
function fieldsOf(error: FastifyError): FieldErrors[] {
  if (error.validation === undefined) return []
  const fields = fieldErrors(error)
  return Array.isArray(fields) ? fields : [fields]
}

/** An error as a page: what went wrong in words, never internals. */
function errorPage(caught: FastifyError | Problem, request: FastifyRequest, reply: FastifyReply) {
  const error = concurrentWriteConflict(caught) ?? caught
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
  // Set by the session hook on signed-in pages; absent on public ones and when the hook itself failed.
  const session: ConsoleSession | null = request.session
  const errors = error instanceof Problem ? [error.extra.errors ?? []].flat() : fieldsOf(error)
  return sendPage(reply, errorView(status, text, errors, session ?? {}), status)
}

/** A request the HTTP layer refused before any route (e.g. a path that is not valid percent-encoding). */
export const consoleRequestError = (reply: FastifyReply, detail: string) =>
  sendPage(reply, errorView(400, detail, [], {}), 400)

/** A field of a posted form, before the route's schema has looked at the body (anything but text is absent). */
function formField(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && Object.hasOwn(body, name)
    ? (body as Record<string, unknown>)[name]
    : undefined
}

export const consoleRoutes =
  ({
    config,
    database,
    keys,
    lookups,
    listeningPort,
  }: {
    config: Readonly<Config>
    database: Database
    keys: ServerKeys
    lookups: LookupCache
    listeningPort: () => number | undefined
  }): FastifyPluginAsync =>
  async (app: FastifyInstance) => {
    const deps: ConsoleDeps = {
      config,
      db: database.db,
      keys,
      lookups,
      attempts: attemptCounterFrom(config, 'sign-in'),
      limits: { idleMinutes: config.SESSION_IDLE_MINUTES, maxHours: config.SESSION_MAX_HOURS },
      listeningPort,
    }
    await app.register(cookie)
    await app.register(formbody, { bodyLimit: 16_384 })
    app.decorateRequest('session', null, [])
    app.setErrorHandler(errorPage)
    app.setNotFoundHandler((request, reply) =>
      errorPage(new Problem(404, 'Not Found', 'There is no such page in the console.'), request, reply),
    )

    // Before validation, so a signed-out or forged request is answered as such, not as a bad form.
    app.addHook('preValidation', async (request, reply) => {
      // A form posted from another site is refused whatever else it carries (login CSRF included).
      // `Origin: null` (a sandboxed frame, a data: URL, a redirect across sites) is as foreign as any other —
      // unless the browser itself says the request is same-origin (Sec-Fetch-Site): a browser sends
      // `Origin: null` on its own forms' POSTs too when the page's referrer policy is no-referrer.
      const origin = request.headers.origin
      const site = request.headers['sec-fetch-site']
      const changes = !['GET', 'HEAD', 'OPTIONS'].includes(request.method)
      const foreign =
        site === 'cross-site' ||
        site === 'same-site' ||
        (origin !== undefined && !(origin === 'null' && site === 'same-origin') && !sameOrigin(origin, request.host))
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
      await prepareMenu(deps, live.actor)
      if (request.method !== 'POST') return
      // An upload form's token is the first part of its multipart body (multipart.ts); any other form's is a field.
      const given = isUploadForm(request)
        ? await csrfPart(request, config.ATTACHMENT_MAX_BYTES)
        : formField(request.body, '_csrf')
      if (!csrfMatches(request.session.csrf, given)) {
        throw new Problem(
          403,
          'Forbidden',
          'This form has expired or did not come from the console. Reload the page and try again.',
        )
      }
    })

    const typed: ConsoleApp = app.withTypeProvider<TypeBoxTypeProvider>()
    const Asset = Type.Object({ name: Type.String({ maxLength: 100 }) })
    typed.get(
      '/assets/:name',
      { config: { publicPage: true }, schema: { hide: true, params: Asset } },
      async (request, reply) => {
        const { name } = request.params
        const body = ASSETS.get(name)
        if (body === undefined) throw new Problem(404, 'Not Found', 'No such file.')
        return reply
          .header('cache-control', 'public, max-age=300')
          .type(name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8')
          .send(body)
      },
    )

    authPages(typed, deps)
    homePages(typed, deps)
    accountPages(typed, deps)
    applicationPages(typed, deps)
    userPages(typed, deps)
    userEditPages(typed, deps)
    vendorPages(typed, deps)
    vendorImportPages(typed, deps)
    locationPages(typed, deps)
    outboxPages(typed, deps)
    webhookPages(typed, deps)
    requestPages(typed, deps)
    approvalPages(typed, deps)
    ssoPages(typed, deps)
    setupPages(typed, deps)
    orderPages(typed, deps)
    billPages(typed, deps)
    receiptPages(typed, deps)
    paymentPages(typed, deps)
    expensePages(typed, deps)
    reportPages(typed, deps)
    budgetPages(typed, deps)
    budgetCheckPages(typed, deps)
    // Uploads in a context of their own: only their routes take multipart bodies (elsewhere they stay 415).
    await app.register(async (uploads) => {
      await uploads.register(multipart, { limits: { fileSize: config.ATTACHMENT_MAX_BYTES } })
      const withUploads: ConsoleApp = uploads.withTypeProvider<TypeBoxTypeProvider>()
      attachmentPages(withUploads, deps)
      expenseReceiptPages(withUploads, deps)
    })
  }
