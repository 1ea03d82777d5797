/** Sign-in, sign-out, and the set-password page that every one-time link (invitation, set-up, reset) opens. */
import type { FastifyInstance } from 'fastify'
import { hashPassword, passwordProblem, PASSWORD_MIN_LENGTH } from '../core/passwords.ts'
import { openLink, useLink } from '../invitations/service.ts'
import { endSession, signIn, startSession } from '../sessions/service.ts'
import { clearSessionCookie, hostOf, safeNext, sendPage, setSessionCookie, type ConsoleDeps } from './context.ts'
import { hostAllows } from '../http/host.ts'
import { html, type Html } from './html.ts'
import { notice, page } from './layout.ts'

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/

function signInForm(next: string, email = '', message?: Html): string {
  return page(
    { title: 'Sign in' },
    html`${message ?? ''}
      <form method="post" action="/console/sign-in" class="card" novalidate>
        <input type="hidden" name="next" value="${next}" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <p><button type="submit">Sign in</button></p>
      </form>
      <p class="muted">No password yet, or forgot it? Ask your administrator for a set-password link.</p>`,
  )
}

function setupForm(token: string, email: string, company: string, message?: Html): string {
  return page(
    { title: 'Set your password' },
    html`<p>Choose a password for <strong>${email}</strong> at ${company}. This link works once.</p>
      ${message ?? ''}
      <form method="post" action="/console/setup/${token}" class="card">
        <label for="password">New password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength="${PASSWORD_MIN_LENGTH}"
          aria-describedby="password-rule"
        />
        <p id="password-rule" class="muted">At least ${PASSWORD_MIN_LENGTH} characters.</p>
        <label for="confirm">Repeat the password</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
        <p><button type="submit">Set password</button></p>
      </form>`,
  )
}

const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name]
  return typeof value === 'string' ? value : ''
}

export function authPages(app: FastifyInstance, deps: ConsoleDeps): void {
  const publicPage = { config: { publicPage: true }, schema: { hide: true } }

  app.get('/sign-in', publicPage, async (request, reply) => {
    const next = safeNext((request.query as { next?: unknown }).next)
    const host = hostOf(deps.config, request)
    if (host.mode === 'multi' && host.domain === null) {
      return sendPage(reply, page({ title: 'Sign in' }, notice('alert', 'There is no company at this address.')), 404)
    }
    return sendPage(reply, signInForm(next))
  })

  app.post('/sign-in', publicPage, async (request, reply) => {
    const email = field(request.body, 'email').trim().slice(0, 254)
    const password = field(request.body, 'password').slice(0, 1024)
    const next = safeNext(field(request.body, 'next'))
    const result = await signIn(deps.db, deps.attempts, deps.limits, {
      host: hostOf(deps.config, request),
      email,
      password,
      address: request.ip,
      userAgent: String(request.headers['user-agent'] ?? ''),
    })
    if (result.ok) {
      setSessionCookie(request, reply, result.token, deps.limits.maxHours)
      return reply.redirect(next, 303)
    }
    if (result.waitSeconds > 0) {
      reply.header('retry-after', String(result.waitSeconds))
      return sendPage(
        reply,
        signInForm(
          next,
          email,
          notice('alert', `Too many failed attempts. Try again in ${result.waitSeconds} seconds.`),
        ),
        429,
      )
    }
    return sendPage(reply, signInForm(next, email, notice('alert', 'The e-mail or password is not right.')), 401)
  })

  app.post('/sign-out', { schema: { hide: true } }, async (request, reply) => {
    await endSession(deps.db, request.session.token)
    clearSessionCookie(request, reply)
    return reply.redirect('/console/sign-in?signedOut=1', 303)
  })

  // A link works on its own tenant's host only (in multi-tenant mode), where its session will be valid.
  const linkPage = async (request: { host: string }, token: string) => {
    const link = TOKEN.test(token) ? await openLink(deps.db, token) : undefined
    return link !== undefined && hostAllows(hostOf(deps.config, request), link.domain) ? link : undefined
  }
  const deadLink = () =>
    page(
      { title: 'Set your password' },
      notice('alert', 'This link is unknown, already used or expired. Ask your administrator for a new one.'),
    )

  // Opening a link (GET) only shows the form: a mail scanner that prefetches it changes nothing.
  app.get('/setup/:token', publicPage, async (request, reply) => {
    const { token } = request.params as { token: string }
    const link = await linkPage(request, token)
    if (link === undefined) return sendPage(reply, deadLink(), 404)
    return sendPage(reply, setupForm(token, link.email, link.tenant_name))
  })

  app.post('/setup/:token', publicPage, async (request, reply) => {
    const { token } = request.params as { token: string }
    const link = await linkPage(request, token)
    if (link === undefined) return sendPage(reply, deadLink(), 404)
    const password = field(request.body, 'password')
    const problem =
      passwordProblem(password) ??
      (password === field(request.body, 'confirm') ? undefined : 'the two passwords differ')
    if (problem !== undefined) {
      return sendPage(
        reply,
        setupForm(token, link.email, link.tenant_name, notice('alert', `The password ${problem}.`)),
        400,
      )
    }
    const used = await useLink(deps.db, token, {
      host: hostOf(deps.config, request),
      purposes: ['invitation', 'setup', 'reset'],
      passwordHash: await hashPassword(password),
    })
    const session = await startSession(deps.db, used, deps.limits, {
      userAgent: String(request.headers['user-agent'] ?? ''),
      address: request.ip,
    })
    setSessionCookie(request, reply, session, deps.limits.maxHours)
    return reply.redirect('/console/account?welcome=1', 303)
  })
}
