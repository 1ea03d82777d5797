/** The console over `app.inject`, as one browser would use it: a tenant, a cookie kept between requests, forms. */
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import { createTenant } from '../../src/tenants/service.ts'
import type { TestContext } from './app.ts'

export const CONSOLE_PASSWORD = 'correct horse battery'

let counter = 0
/** A new tenant made by the operator's service, with its administrator's set-up token. */
export async function newTenant(ctx: TestContext, baseDomain: string) {
  const domain = `co${process.pid}x${++counter}`
  const created = await createTenant(ctx.database.db, {
    domain,
    name: `Company ${counter}`,
    adminEmail: `admin@${domain}.test`,
    adminFirstName: 'Ada',
  })
  return { domain, host: `${domain}.${baseDomain}`, email: `admin@${domain}.test`, ...created }
}

/** A browser of one: keeps its cookie, sends the host it was given. */
export function browser(ctx: TestContext, host: string) {
  const jar = new Map<string, string>()
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
  const send = async (options: InjectOptions & { url: string }) => {
    const cookie = cookieHeader()
    const response = await ctx.app.inject({
      ...options,
      headers: { host, ...(cookie ? { cookie } : {}), ...(options.headers ?? {}) },
    })
    const set = response.headers['set-cookie']
    for (const line of [set ?? []].flat()) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)]
      if (value === '' || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name)
      else jar.set(name, value)
    }
    return response
  }
  const csrfOf = (body: string) => /name="_csrf" value="([^"]+)"/.exec(body)?.[1]
  return {
    get: (url: string) => send({ method: 'GET', url }),
    post: (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      send({
        method: 'POST',
        url,
        payload: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      }),
    csrfOf,
    /** The cookies this browser would send, as a Cookie header; setting it replaces them all. */
    get cookie() {
      return cookieHeader()
    },
    set cookie(value: string) {
      jar.clear()
      for (const pair of value.split('; ').filter(Boolean)) {
        const at = pair.indexOf('=')
        jar.set(pair.slice(0, at), pair.slice(at + 1))
      }
    },
  }
}

/** A new tenant's administrator, signed in through the set-password link. */
export async function signedInAdmin(ctx: TestContext, baseDomain: string) {
  const tenant = await newTenant(ctx, baseDomain)
  const b = browser(ctx, tenant.host)
  const set = await b.post(`/console/setup/${tenant.setupToken}`, {
    password: CONSOLE_PASSWORD,
    confirm: CONSOLE_PASSWORD,
  })
  assert.equal(set.statusCode, 303, set.body)
  return { tenant, b }
}

/**
 * A Requester of the admin's tenant (`admin` is signedInAdmin's browser), invited through the console and
 * signed in through the invitation's link (read off the outbox): their own browser.
 */
export async function signedInRequester(
  ctx: TestContext,
  tenant: Awaited<ReturnType<typeof newTenant>>,
  admin: ReturnType<typeof browser>,
) {
  const role = await ctx.database.db
    .selectFrom('roles')
    .select('id')
    .where('tenant_id', '=', tenant.tenantId)
    .where('name', '=', 'Requester')
    .executeTakeFirstOrThrow()
  const email = `req${++counter}@${tenant.domain}.test`
  const csrf = admin.csrfOf((await admin.get('/console/users')).body)!
  const invited = await admin.post('/console/users/invite', { _csrf: csrf, email, role_id: String(role.id) })
  assert.equal(invited.statusCode, 303, invited.body)
  const mail = await ctx.database.db
    .selectFrom('email_outbox')
    .select('body_text')
    .where('tenant_id', '=', tenant.tenantId)
    .where('to_address', '=', email)
    .executeTakeFirstOrThrow()
  const link = /\/console\/setup\/([A-Za-z0-9_-]+)/.exec(mail.body_text)![1]!
  const b = browser(ctx, tenant.host)
  const set = await b.post(`/console/setup/${link}`, { password: CONSOLE_PASSWORD, confirm: CONSOLE_PASSWORD })
  assert.equal(set.statusCode, 303, set.body)
  return b
}
