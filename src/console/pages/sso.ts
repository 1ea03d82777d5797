/**
 * Single sign-on in the console: `GET /console/sso/start` sends the browser to the tenant's identity provider,
 * `GET /console/sso/callback` finishes the sign-in (sso/signin.service.ts) and starts a session — or shows a
 * page that says why not. Settings → Single sign-on (superuser) configures the provider through the API's own
 * service and validation, and makes and revokes SCIM tokens.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { requireAny } from '../../access/actor.ts'
import { Problem } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { listRoles } from '../../lookups/service.ts'
import { listLocations } from '../../locations/service.ts'
import * as scimTokens from '../../scim/tokens.service.ts'
import { startSession } from '../../sessions/service.ts'
import { SsoConfigInput, type SsoConfig } from '../../sso/schema.ts'
import * as sso from '../../sso/service.ts'
import { beginSignIn, completeSignIn, FLOW_MINUTES, SignInRefused, ssoTenantOf } from '../../sso/signin.service.ts'
import {
  hostOf,
  mailBaseOf,
  safeNext,
  sendPage,
  setSessionCookie,
  type ConsoleApp,
  type ConsoleDeps,
  type ConsoleSession,
} from '../context.ts'
import { openFlash, sealFlash } from '../flash.ts'
import type { FormState, Values } from '../views/forms.ts'
import { notice } from '../views/layout.ts'
import { SSO_BASE, SSO_LABELS, ssoRefusedView, ssoView } from '../views/sso.ts'
import { attempt, Done, errorsFor, flashOf, FormBody, Id, valuesOf } from './forms.ts'

const FLOW_COOKIE = 'procurement_sso'
const FIELDS = Object.keys(SSO_LABELS)
const checkInput = bodyChecker(SsoConfigInput)
const flash = flashOf({
  saved: 'Single sign-on is saved: the issuer answered OpenID discovery.',
  deleted: 'Single sign-on is off. People sign in with their passwords.',
  revoked: 'The SCIM token is revoked.',
})
const StartQuery = Type.Object({ next: Type.Optional(Type.Unknown()) })
const CallbackQuery = Type.Record(Type.String({ maxLength: 100 }), Type.Unknown())

const flowCookie = (request: FastifyRequest) => ({
  path: '/console/sso',
  httpOnly: true,
  sameSite: 'lax' as const,
  secure: request.protocol === 'https',
})

async function refused(reply: FastifyReply, request: FastifyRequest, reason: string, status: number) {
  reply.clearCookie(FLOW_COOKIE, flowCookie(request))
  return sendPage(reply, ssoRefusedView(reason), status)
}

type Reference = { id: number; name: string }

/** `group = role` or `group = role @ location` lines, by name (or id), into the API's group_roles. */
function groupRolesOf(text: string, roles: readonly Reference[], locations: readonly Reference[]) {
  const find = (list: readonly Reference[], name: string) =>
    list.find((r) => r.name.toLowerCase() === name.toLowerCase() || String(r.id) === name)?.id
  const problems: string[] = []
  const mappings = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line, i) => {
      const match = /^(.+?)\s*=\s*(.+?)(?:\s*@\s*(.+))?$/.exec(line)
      if (match === null) {
        problems.push(`line ${i + 1} must read "group = role" or "group = role @ location"`)
        return undefined
      }
      const role = find(roles, match[2]!)
      const location = match[3] === undefined ? null : find(locations, match[3])
      if (role === undefined) problems.push(`line ${i + 1}: there is no role "${match[2]}"`)
      if (location === undefined) problems.push(`line ${i + 1}: there is no location "${match[3]}"`)
      return role === undefined || location === undefined ? undefined : { group: match[1]!, role, location }
    })
  return { mappings: mappings.filter((m) => m !== undefined), problems }
}

export function ssoPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db, config, keys } = deps
  const allowHttp = config.SSO_ALLOW_HTTP_ISSUER
  const publicPage = { publicPage: true }

  app.get(
    '/sso/start',
    { config: publicPage, schema: { hide: true, querystring: StartQuery } },
    async (request, reply) => {
      const tenant = await ssoTenantOf(db, hostOf(config, request))
      if (tenant === undefined) return refused(reply, request, 'Single sign-on is not set up for this company.', 404)
      try {
        const redirectUri = `${mailBaseOf(deps, tenant.domain)}/console/sso/callback`
        const next = safeNext(request.query.next)
        const started = await beginSignIn(db, keys, allowHttp, tenant, redirectUri, next)
        reply.setCookie(FLOW_COOKIE, started.cookie, { ...flowCookie(request), maxAge: FLOW_MINUTES * 60 })
        return reply.redirect(started.url, 303)
      } catch (error) {
        if (error instanceof SignInRefused) return refused(reply, request, error.reason, error.status)
        throw error
      }
    },
  )

  app.get(
    '/sso/callback',
    { config: publicPage, schema: { hide: true, querystring: CallbackQuery } },
    async (request, reply) => {
      const tenant = await ssoTenantOf(db, hostOf(config, request))
      if (tenant === undefined) return refused(reply, request, 'Single sign-on is not set up for this company.', 404)
      // The URL the provider redirected to is our registered redirect URI, never one built from the Host header.
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : ''
      const callbackUrl = new URL(`${mailBaseOf(deps, tenant.domain)}/console/sso/callback${query}`)
      try {
        const done = await completeSignIn(
          db,
          keys,
          allowHttp,
          tenant,
          request.cookies[FLOW_COOKIE],
          callbackUrl,
          request.id,
        )
        const token = await startSession(db, done, deps.limits, {
          userAgent: String(request.headers['user-agent'] ?? ''),
          address: request.ip,
        })
        reply.clearCookie(FLOW_COOKIE, flowCookie(request))
        setSessionCookie(request, reply, token, deps.limits.maxHours)
        return reply.redirect(done.next, 303)
      } catch (error) {
        if (error instanceof SignInRefused) return refused(reply, request, error.reason, error.status)
        throw error
      }
    },
  )

  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.url?.startsWith(SSO_BASE) === true) requireAny(request.session.actor, 'superuser')
  })

  const references = async (session: ConsoleSession) => {
    const [roles, locations] = await Promise.all([
      listRoles(db, session.actor, { page: 1, page_size: 100, order_by: 'name' }),
      listLocations(db, session.actor, { page: 1, page_size: 100, order_by: 'name' }),
    ])
    return {
      roles: roles.rows.map((r) => ({ id: r.id, name: r.name })),
      locations: locations.rows.map((l) => ({ id: l.id, name: l.name })),
    }
  }

  const show = async (
    request: FastifyRequest,
    session: ConsoleSession,
    form: FormState | undefined,
    top: ReturnType<typeof notice> | string,
    newToken?: string,
  ) => {
    const origin = mailBaseOf(deps, session.actor.domain)
    const refs = await references(session)
    let current: SsoConfig | undefined
    try {
      current = await sso.getConfig(db, session.actor, origin)
    } catch (error) {
      if (!(error instanceof Problem) || error.status !== 404) throw error
    }
    const roleName = (id: number) => refs.roles.find((r) => r.id === id)?.name ?? String(id)
    const locationName = (id: number) => refs.locations.find((l) => l.id === id)?.name ?? String(id)
    const values: Values =
      current === undefined
        ? { scopes: 'openid email profile', groups_claim: 'groups', password_login: 'allowed' }
        : {
            issuer: current.issuer,
            client_id: current.client_id,
            scopes: current.scopes,
            allowed_domains: current.allowed_domains.join('\n'),
            jit_provisioning: current.jit_provisioning ? 'on' : '',
            default_role: current.default_role === null ? '' : String(current.default_role),
            groups_claim: current.groups_claim,
            group_roles: current.group_roles
              .map(
                (g) => `${g.group} = ${roleName(g.role)}${g.location === null ? '' : ` @ ${locationName(g.location)}`}`,
              )
              .join('\n'),
            password_login: current.password_login,
          }
    const data = {
      configured: current !== undefined,
      redirectUri: `${origin}/console/sso/callback`,
      scimBaseUrl: `${origin}/scim/v2`,
      roles: refs.roles.map((r) => ({ value: String(r.id), label: r.name })),
      tokens: await scimTokens.listTokens(db, session.actor),
    }
    return ssoView(data, form ?? { values, errors: {} }, session, top, newToken)
  }

  app.get('/settings/sso', { schema: { hide: true, querystring: Done } }, async (request, reply) => {
    const sealed = openFlash(keys, request, reply, SSO_BASE)
    const token = sealed !== undefined && typeof sealed.token === 'string' ? sealed.token : undefined
    const done = flash(request.query.done)
    return sendPage(
      reply,
      await show(request, request.session, undefined, done === undefined ? '' : notice('status', done), token),
    )
  })

  app.post('/settings/sso', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const values = valuesOf(request.body, FIELDS)
    const refs = await references(request.session)
    const groups = groupRolesOf(values.group_roles ?? '', refs.roles, refs.locations)
    const body = {
      issuer: (values.issuer ?? '').trim(),
      client_id: (values.client_id ?? '').trim(),
      ...((values.client_secret ?? '') === '' ? {} : { client_secret: values.client_secret }),
      ...((values.scopes ?? '').trim() === '' ? {} : { scopes: values.scopes!.trim() }),
      allowed_domains: (values.allowed_domains ?? '').split(/[\s,;]+/).filter((d) => d !== ''),
      jit_provisioning: values.jit_provisioning === 'on',
      default_role: (values.default_role ?? '') === '' ? null : Number(values.default_role),
      ...((values.groups_claim ?? '').trim() === '' ? {} : { groups_claim: values.groups_claim!.trim() }),
      group_roles: groups.mappings,
      password_login: values.password_login ?? 'allowed',
    }
    const kept = { ...values, client_secret: '' }
    if (groups.problems.length > 0) {
      const form = { values: kept, errors: { group_roles: groups.problems } }
      return sendPage(reply, await show(request, request.session, form, ''), 400)
    }
    const checked = checkInput(body)
    const origin = mailBaseOf(deps, request.session.actor.domain)
    const result = checked.ok
      ? await attempt(kept, FIELDS, () =>
          sso.saveConfig(db, request.session.actor, keys, { allowHttpIssuer: allowHttp }, checked.value, origin),
        )
      : { ok: false as const, form: { values: kept, errors: errorsFor(checked.errors, FIELDS) }, message: '' }
    if (!result.ok) {
      const top = result.message === '' ? '' : notice('alert', result.message)
      return sendPage(reply, await show(request, request.session, result.form, top), 400)
    }
    return reply.redirect(`${SSO_BASE}?done=saved`, 303)
  })

  app.post('/settings/sso/delete', { schema: { hide: true } }, async (request, reply) => {
    await sso.deleteConfig(db, request.session.actor)
    return reply.redirect(`${SSO_BASE}?done=deleted`, 303)
  })

  app.post('/settings/sso/tokens', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const origin = mailBaseOf(deps, request.session.actor.domain)
    const description = (request.body.description ?? '').slice(0, 200)
    const made = await scimTokens.createToken(db, request.session.actor, keys.pepper, { description }, origin)
    sealFlash(keys, request, reply, SSO_BASE, { token: made.token })
    return reply.redirect(SSO_BASE, 303)
  })

  app.post('/settings/sso/tokens/:id/revoke', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await scimTokens.revokeToken(db, request.session.actor, request.params.id)
    return reply.redirect(`${SSO_BASE}?done=revoked`, 303)
  })
}
