/** Sign-in, sign-out, and the set-password page that every one-time link (invitation, set-up, reset) opens. */
import { Type } from 'typebox'
import { hashPassword, passwordProblem } from '../../core/passwords.ts'
import { hostAllows } from '../../http/host.ts'
import { openLink, useLink } from '../../invitations/service.ts'
import { endSession, signIn, startSession } from '../../sessions/service.ts'
import { passwordRule, signInOptions } from '../../sso/signin.service.ts'
import {
  clearSessionCookie,
  hostOf,
  safeNext,
  sendPage,
  setSessionCookie,
  type ConsoleApp,
  type ConsoleDeps,
} from '../context.ts'
import { deadLinkView, noCompanyView, setupView, signInView } from '../views/auth.ts'
import { notice } from '../views/layout.ts'

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/

/** Form fields arrive as text; anything else (or nothing) reads as empty, and is judged by the service. */
const Text = Type.Optional(Type.Unknown())
const text = (value: unknown): string => (typeof value === 'string' ? value : '')

const SignInQuery = Type.Object({ next: Text })
const SignInForm = Type.Object({ email: Text, password: Text, next: Text })
const LinkParams = Type.Object({ token: Type.String({ maxLength: 200 }) })
const PasswordForm = Type.Object({ password: Text, confirm: Text })

export function authPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const publicPage = { publicPage: true }

  app.get(
    '/sign-in',
    { config: publicPage, schema: { hide: true, querystring: SignInQuery } },
    async (request, reply) => {
      const next = safeNext(request.query.next)
      const host = hostOf(deps.config, request)
      if (host.mode === 'multi' && host.domain === null) return sendPage(reply, noCompanyView(), 404)
      const sso = (await signInOptions(deps.db, host)) !== undefined
      return sendPage(reply, signInView(next, '', undefined, sso))
    },
  )

  app.post('/sign-in', { config: publicPage, schema: { hide: true, body: SignInForm } }, async (request, reply) => {
    const email = text(request.body.email).trim().slice(0, 254)
    const password = text(request.body.password).slice(0, 1024)
    const next = safeNext(request.body.next)
    const host = hostOf(deps.config, request)
    const sso = (await signInOptions(deps.db, host)) !== undefined
    // The company's single sign-on policy may turn passwords off (for all, or for all but superusers): then
    // the password is never checked, and every failure gets the policy's one answer.
    const result = await signIn(deps.db, deps.attempts, deps.limits, {
      host,
      email,
      password,
      address: request.ip,
      userAgent: String(request.headers['user-agent'] ?? ''),
      policy: (account) => passwordRule(deps.db, host, account),
    })
    if (result.ok) {
      setSessionCookie(request, reply, result.token, deps.limits.maxHours)
      return reply.redirect(next, 303)
    }
    if (result.waitSeconds > 0) {
      reply.header('retry-after', String(result.waitSeconds))
      return sendPage(
        reply,
        signInView(
          next,
          email,
          notice('alert', `Too many failed attempts. Try again in ${result.waitSeconds} seconds.`),
          sso,
        ),
        429,
      )
    }
    if (result.failure !== undefined)
      return sendPage(reply, signInView(next, email, notice('alert', result.failure), true), 403)
    return sendPage(reply, signInView(next, email, notice('alert', 'The e-mail or password is not right.'), sso), 401)
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
  // Opening a link (GET) only shows the form: a mail scanner that prefetches it changes nothing.
  app.get(
    '/setup/:token',
    { config: publicPage, schema: { hide: true, params: LinkParams } },
    async (request, reply) => {
      const { token } = request.params
      const link = await linkPage(request, token)
      if (link === undefined) return sendPage(reply, deadLinkView(), 404)
      return sendPage(reply, setupView(token, link.email, link.tenant_name))
    },
  )

  const setup = { config: publicPage, schema: { hide: true, params: LinkParams, body: PasswordForm } }
  app.post('/setup/:token', setup, async (request, reply) => {
    const { token } = request.params
    const link = await linkPage(request, token)
    if (link === undefined) return sendPage(reply, deadLinkView(), 404)
    const password = text(request.body.password)
    const rule = passwordProblem(password)
    const problem =
      rule !== undefined
        ? `The password ${rule}.`
        : password !== text(request.body.confirm)
          ? 'The two passwords you typed differ.'
          : undefined
    if (problem !== undefined) {
      const message = notice('alert', problem)
      return sendPage(reply, setupView(token, link.email, link.tenant_name, message), 400)
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
    return reply.redirect('/console/?welcome=1', 303)
  })
}
