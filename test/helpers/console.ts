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
  let cookie = ''
  const send = async (options: InjectOptions & { url: string }) => {
    const response = await ctx.app.inject({
      ...options,
      headers: { host, ...(cookie ? { cookie } : {}), ...(options.headers ?? {}) },
    })
    const set = response.headers['set-cookie']
    for (const line of [set ?? []].flat()) {
      const [pair] = line.split(';')
      cookie = /=$/.test(pair!) || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line) ? '' : pair!
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
    get cookie() {
      return cookie
    },
    set cookie(value: string) {
      cookie = value
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
