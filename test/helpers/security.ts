/**
 * What the security tests share: a fresh tenant on its own host, a cookie-keeping console browser, an API
 * caller for any user of the tenant, and extra roles and users made the way an administrator would.
 */
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import { insertWithCredentials } from '../../src/applications/service.ts'
import type { PermissionKey } from '../../src/db/schema.ts'
import { createTenant, resetPasswordLink } from '../../src/tenants/service.ts'
import { TEST_AUDIENCE, type TestContext } from './app.ts'

export const BASE_DOMAIN = 'example.test'
export const PASSWORD = 'correct horse battery'
let counter = 0

export async function newTenant(ctx: TestContext) {
  const domain = `sec${process.pid}x${++counter}`
  const created = await createTenant(ctx.database.db, {
    domain,
    name: `Company ${counter}`,
    adminEmail: `admin@${domain}.test`,
    adminFirstName: 'Ada',
  })
  return { domain, host: `${domain}.${BASE_DOMAIN}`, email: `admin@${domain}.test`, ...created }
}
export type Tenant = Awaited<ReturnType<typeof newTenant>>

/** A browser of one: keeps its cookie, sends the host it was given. */
export function browser(ctx: TestContext, host: string) {
  let cookie = ''
  const send = async (options: InjectOptions & { url: string }) => {
    const response = await ctx.app.inject({
      ...options,
      headers: { host, ...(cookie ? { cookie } : {}), ...(options.headers ?? {}) },
    })
    for (const line of [response.headers['set-cookie'] ?? []].flat()) {
      const [pair] = line.split(';')
      cookie = /=$/.test(pair!) || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line) ? '' : pair!
    }
    return response
  }
  const csrfOf = (body: string) => /name="_csrf" value="([^"]+)"/.exec(body)?.[1]
  return {
    get: (url: string, headers: Record<string, string> = {}) => send({ method: 'GET', url, headers }),
    post: (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      send({
        method: 'POST',
        url,
        payload: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      }),
    /** GETs `page` for its CSRF token, then posts `form` with it to `url`. */
    async submit(page: string, url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
      const csrf = csrfOf((await send({ method: 'GET', url: page })).body)
      assert.ok(csrf, `no CSRF token on ${page}`)
      return this.post(url, { _csrf: csrf, ...form }, headers)
    },
    csrfOf,
    get cookie() {
      return cookie
    },
    set cookie(value: string) {
      cookie = value
    },
  }
}
export type Browser = ReturnType<typeof browser>

/** Sets a password through the one-time link and returns the signed-in browser. */
export async function throughLink(ctx: TestContext, host: string, token: string, password = PASSWORD) {
  const b = browser(ctx, host)
  const set = await b.post(`/console/setup/${token}`, { password, confirm: password })
  assert.equal(set.statusCode, 303, set.body)
  return b
}

/** The tenant's administrator, signed in to the console through the set-up link. */
export const adminBrowser = (ctx: TestContext, tenant: Tenant) => throughLink(ctx, tenant.host, tenant.setupToken)

/** An API caller acting as `userId` (through an application of theirs) on the tenant's host. */
export async function apiAs(ctx: TestContext, tenant: Tenant, userId: number) {
  const creds = await insertWithCredentials(ctx.database.db, ctx.keys.pepper, { tenantId: tenant.tenantId, userId })
  const issued = await ctx.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { host: tenant.host },
    payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
  })
  assert.equal(issued.statusCode, 200, issued.body)
  const token = issued.json().access_token as string
  const api = (options: InjectOptions & { url: string }) =>
    ctx.app.inject({
      ...options,
      headers: {
        host: tenant.host,
        authorization: `Bearer ${token}`,
        'x-service-client': 'api',
        ...(options.headers ?? {}),
      },
    })
  return Object.assign(api, { token })
}
export type Api = Awaited<ReturnType<typeof apiAs>>

/** A role of the tenant (made as the operator would) carrying exactly `keys`; returns its id. */
export async function roleWith(ctx: TestContext, tenant: Tenant, name: string, keys: PermissionKey[], type = 1) {
  const db = ctx.database.db
  const { id } = await db
    .insertInto('roles')
    .values({ tenant_id: tenant.tenantId, name, type, tier: 'Basic' })
    .returning('id')
    .executeTakeFirstOrThrow()
  if (keys.length > 0) {
    const permissions = await db.selectFrom('permissions').select('id').where('key', 'in', keys).execute()
    await db
      .insertInto('role_permissions')
      .values(permissions.map((p) => ({ tenant_id: tenant.tenantId, role_id: id, permission_id: p.id })))
      .execute()
  }
  return id
}

export async function roleId(ctx: TestContext, tenant: Tenant, name: string) {
  const row = await ctx.database.db
    .selectFrom('roles')
    .select('id')
    .where('tenant_id', '=', tenant.tenantId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow()
  return row.id
}

/** Creates a user through the API as `api` (batch form); returns the profile id and the user id. */
export async function createUser(api: Api, email: string, role: number) {
  const response = await api({ method: 'POST', url: '/api/v3/users/', payload: [{ email, role_id: role }] })
  assert.equal(response.statusCode, 201, response.body)
  const [profile] = response.json().data as { id: number; user: number }[]
  return { profileId: profile!.id, userId: profile!.user }
}

/** A user with a console password, signed in to the console. */
export async function userBrowser(ctx: TestContext, tenant: Tenant, email: string) {
  const token = await resetPasswordLink(ctx.database.db, tenant.domain, email)
  return throughLink(ctx, tenant.host, token)
}

/** The user's row as the database holds it now. */
export const userRow = (ctx: TestContext, userId: number) =>
  ctx.database.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow()
