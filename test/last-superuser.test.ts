/**
 * The tenant's last active superuser is never deactivated (DECISIONS, "Single sign-on and provisioning"):
 * SCIM refuses with 400 `mutability` (DELETE, PATCH and PUT `active: false`), the API and the console with a
 * 409, and nothing changes. Two superusers deactivating each other at the same moment cannot both succeed. The
 * operator re-activates a user with `procurement users activate`.
 *
 * On PostgreSQL the races are made certain: a connection of the test holds the two superusers' rows until
 * both requests wait on them, then lets go.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import type { Kysely } from 'kysely'
import pg from 'pg'
import { operatorActor } from '../src/access/actor.ts'
import { withDatabase } from '../src/cli/shared.ts'
import { loadConfig } from '../src/config.ts'
import type { DB } from '../src/db/schema.ts'
import { createTenant } from '../src/tenants/service.ts'
import { createBatch, deactivateUser } from '../src/users/service.ts'
import { useTestApp } from './helpers/app.ts'
import { engineUnderTest } from './helpers/db.ts'
import { runToEnd } from './helpers/process.ts'
import {
  adminBrowser,
  apiAs,
  BASE_DOMAIN,
  createUser,
  newTenant,
  roleId,
  userBrowser,
  userRow,
  type Tenant,
} from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN })
const SCIM = 'application/scim+json'
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'

const profileOf = async (userId: number) =>
  (
    await ctx.database.db
      .selectFrom('user_profiles')
      .select('id')
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow()
  ).id

const deactivations = async (userIds: number[]) =>
  (
    await ctx.database.db
      .selectFrom('audit_log')
      .select('resource_id')
      .where('action', '=', 'user.deactivate')
      .where(
        'resource_id',
        'in',
        userIds.map((id) => String(id)),
      )
      .execute()
  ).map((r) => Number(r.resource_id))

/** A second superuser of the tenant (the Administrator role holds `superuser`), made by its administrator. */
async function secondSuperuser(tenant: Tenant, email: string) {
  const admin = await apiAs(ctx, tenant, tenant.adminUserId)
  return createUser(admin, email, await roleId(ctx, tenant, 'Administrator'))
}

/**
 * Runs `requests` at the same moment. On PostgreSQL the users `held` are locked by another connection until
 * `requests.length` statements wait on a lock, so the requests are certainly concurrent.
 */
async function race<T>(held: number[], requests: (() => Promise<T>)[]): Promise<T[]> {
  if (engineUnderTest !== 'postgres') return Promise.all(requests.map((r) => r()))
  const holder = new pg.Client({ connectionString: ctx.database.url! })
  await holder.connect()
  try {
    await holder.query('BEGIN')
    await holder.query('SELECT id FROM users WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE', [held])
    const answers = Promise.all(requests.map((r) => r()))
    const name = new URL(ctx.database.url!).pathname.slice(1)
    for (let waited = 0; ; waited += 20) {
      // Within a transaction PostgreSQL reads pg_stat_activity once and keeps that snapshot: clear it, or the
      // connections the requests open after the first look are never seen.
      await holder.query('SELECT pg_stat_clear_snapshot()')
      const { rows } = await holder.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
        [name],
      )
      // Each request waits on the held rows, or behind another that does (a request's authentication touches its
      // application, whose row the other's deactivation may hold): once one waits and the rest had time to
      // arrive, all are in flight before the rows are released.
      if (rows[0]!.n >= requests.length || (rows[0]!.n >= 1 && waited >= 500)) break
      assert.ok(waited < 20_000, 'the requests never reached the lock')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await holder.query('ROLLBACK')
    return await answers
  } finally {
    await holder.end()
  }
}

describe('the last active superuser', () => {
  test('SCIM: DELETE, PATCH and PUT active false of the last superuser are 400 mutability and change nothing', async () => {
    const tenant = await newTenant(ctx)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    const made = await admin({ method: 'POST', url: '/api/v3/scim-tokens/', payload: { description: 'IdP' } })
    assert.equal(made.statusCode, 201, made.body)
    const token = made.json().data.token as string
    const scim = async (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
      const response = await ctx.app.inject({
        method,
        url: `/scim/v2${url}`,
        headers: {
          host: tenant.host,
          authorization: `Bearer ${token}`,
          ...(payload === undefined ? {} : { 'content-type': SCIM }),
        },
        ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
      })
      return { status: response.statusCode, body: response.body === '' ? undefined : response.json() }
    }
    const refusedAsLast = (answer: {
      status: number
      body: { schemas: string[]; scimType: string; detail: string }
    }) => {
      assert.equal(answer.status, 400, JSON.stringify(answer.body))
      assert.deepEqual(answer.body.schemas, [ERROR])
      assert.equal(answer.body.scimType, 'mutability')
      assert.match(answer.body.detail, /last active superuser/)
    }
    const ada = await profileOf(tenant.adminUserId)
    refusedAsLast(await scim('DELETE', `/Users/${ada}`))
    refusedAsLast(
      await scim('PATCH', `/Users/${ada}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      }),
    )
    refusedAsLast(
      await scim('PATCH', `/Users/${ada}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { active: false, name: { givenName: 'Changed' } } }],
      }),
    )
    refusedAsLast(
      await scim('PUT', `/Users/${ada}`, {
        schemas: [USER],
        userName: tenant.email,
        name: { givenName: 'Changed', familyName: 'Too' },
        active: false,
      }),
    )
    const still = await scim('GET', `/Users/${ada}`)
    assert.equal(still.body.active, true)
    assert.equal(still.body.name.givenName, 'Ada', 'the refused PATCH and PUT renamed nobody either')
    assert.equal((await userRow(ctx, tenant.adminUserId)).is_active, true)
    assert.deepEqual(await deactivations([tenant.adminUserId]), [])

    // With a second superuser either may go, but then the one left is the last.
    const bea = await secondSuperuser(tenant, `bea@${tenant.domain}.test`)
    assert.equal((await scim('DELETE', `/Users/${ada}`)).status, 204)
    refusedAsLast(await scim('DELETE', `/Users/${bea.profileId}`))
    assert.equal((await userRow(ctx, bea.userId)).is_active, true)
    const back = await scim('PATCH', `/Users/${ada}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: true }],
    })
    assert.equal(back.status, 200, JSON.stringify(back.body))
    const entra = await scim('PATCH', `/Users/${bea.profileId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    })
    assert.equal(entra.status, 200, JSON.stringify(entra.body))
    assert.equal(entra.body.active, false)
  })

  test('API: two superusers deactivating each other at once — one succeeds, the other is a 409, one is left', async () => {
    const tenant = await newTenant(ctx)
    const bea = await secondSuperuser(tenant, `bea@${tenant.domain}.test`)
    const ada = { userId: tenant.adminUserId, profileId: await profileOf(tenant.adminUserId) }
    const asAda = await apiAs(ctx, tenant, ada.userId)
    const asBea = await apiAs(ctx, tenant, bea.userId)
    const answers = await race(
      [ada.userId, bea.userId],
      [
        () => asAda({ method: 'DELETE', url: `/api/v3/users/${bea.profileId}/` }),
        () => asBea({ method: 'DELETE', url: `/api/v3/users/${ada.profileId}/` }),
      ],
    )
    const statuses = answers.map((a) => a.statusCode)
    assert.equal(statuses.filter((s) => s === 204).length, 1, JSON.stringify(answers.map((a) => a.body)))
    const refused = answers.find((a) => a.statusCode !== 204)!
    // Both passed authentication first (certainly so on PostgreSQL); the embedded engine may instead have
    // run one request whole before the other's token was checked, which is then a deactivated user's (401).
    if (engineUnderTest === 'postgres' || refused.statusCode !== 401) {
      assert.equal(refused.statusCode, 409, refused.body)
      assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8')
      assert.equal(refused.json().type, '/problems/conflict')
      assert.match(refused.json().detail, /last active superuser/)
    }
    const active = [(await userRow(ctx, ada.userId)).is_active, (await userRow(ctx, bea.userId)).is_active]
    assert.deepEqual(active.filter(Boolean), [true], 'exactly one superuser is left')
    assert.equal((await deactivations([ada.userId, bea.userId])).length, 1)
  })

  test('console: the same race from two signed-in superusers — one deactivation, the other a 409 page', async () => {
    const tenant = await newTenant(ctx)
    const beaEmail = `bea@${tenant.domain}.test`
    const bea = await secondSuperuser(tenant, beaEmail)
    const ada = { userId: tenant.adminUserId, profileId: await profileOf(tenant.adminUserId) }
    const adaBrowser = await adminBrowser(ctx, tenant)
    const beaBrowser = await userBrowser(ctx, tenant, beaEmail)
    const adaForm = adaBrowser.csrfOf((await adaBrowser.get(`/console/users/${bea.profileId}/deactivate`)).body)
    const beaForm = beaBrowser.csrfOf((await beaBrowser.get(`/console/users/${ada.profileId}/deactivate`)).body)
    assert.ok(adaForm !== undefined && beaForm !== undefined)
    const answers = await race(
      [ada.userId, bea.userId],
      [
        () => adaBrowser.post(`/console/users/${bea.profileId}/deactivate`, { _csrf: adaForm }),
        () => beaBrowser.post(`/console/users/${ada.profileId}/deactivate`, { _csrf: beaForm }),
      ],
    )
    const done = answers.filter((a) => a.statusCode === 303 && a.headers.location === '/console/users?deactivated=1')
    assert.equal(done.length, 1, JSON.stringify(answers.map((a) => [a.statusCode, a.headers.location])))
    const refused = answers.find((a) => !done.includes(a))!
    // As in the API: on the embedded engine the other browser's session may already have ended (to sign-in).
    if (engineUnderTest === 'postgres' || refused.statusCode !== 303) {
      assert.equal(refused.statusCode, 409, refused.body)
      assert.match(refused.headers['content-type'] as string, /^text\/html/)
      assert.match(refused.body, /last active superuser/)
    }
    const active = [(await userRow(ctx, ada.userId)).is_active, (await userRow(ctx, bea.userId)).is_active]
    assert.deepEqual(active.filter(Boolean), [true], 'exactly one superuser is left')
  })
})

describe('procurement users activate', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-activate-'))
  after(() => fs.rmSync(dir, { recursive: true, force: true }))
  // The command works on the file's own database on PostgreSQL, on an embedded one in `dir` otherwise.
  const env =
    engineUnderTest === 'postgres'
      ? () => ({
          DATABASE_URL: ctx.database.url!,
          TOKEN_SIGNING_KEY: 'a-token-signing-key-for-this-test-only-0123',
          SECRET_PEPPER: 'a-secret-pepper-for-this-test-only-0123456789',
          BASE_DOMAIN,
          DEMO_SEED: 'false',
        })
      : () => ({ DATA_DIR: dir, BASE_DOMAIN, DEMO_SEED: 'false' })
  /** The database the command uses, opened here while no command runs. */
  const onCommandDatabase = <T>(work: (db: Kysely<DB>) => Promise<T>) =>
    engineUnderTest === 'postgres' ? work(ctx.database.db) : withDatabase(loadConfig(env()), 'test', work)
  const cli = (...args: string[]) => runToEnd(args, env())

  test('re-activates a deactivated user by domain and e-mail; says so when they were active; refuses bad usage', async () => {
    const domain = `act${process.pid}`
    const userId = await onCommandDatabase(async (db) => {
      const created = await createTenant(db, { domain, name: 'Activate Co', adminEmail: `it@${domain}.test` })
      const actor = operatorActor({ id: created.tenantId, domain })
      const [profile] = await createBatch(db, actor, [{ email: `gone@${domain}.test` }], '')
      await deactivateUser(db, actor, profile!.id)
      const row = await db.selectFrom('users').select('is_active').where('id', '=', profile!.user).executeTakeFirst()
      assert.equal(row?.is_active, false)
      return profile!.user
    })

    const activated = await cli('users', 'activate', '--domain', domain, '--email', `GONE@${domain}.test`, '--json')
    assert.equal(activated.code, 0, activated.output)
    assert.deepEqual(JSON.parse(activated.output.trim().split('\n').at(-1)!), {
      domain,
      email: `gone@${domain}.test`,
      active: true,
      changed: true,
    })
    const after = await onCommandDatabase(async (db) => ({
      active: (await db.selectFrom('users').select('is_active').where('id', '=', userId).executeTakeFirstOrThrow())
        .is_active,
      audit: await db
        .selectFrom('audit_log')
        .select(['action', 'changes'])
        .where('resource_id', '=', String(userId))
        .where('action', '=', 'user.activate')
        .execute(),
    }))
    assert.equal(after.active, true)
    assert.equal(after.audit.length, 1, 'audited, as the operator')

    const again = await cli('users', 'activate', '--domain', domain, '--email', `gone@${domain}.test`)
    assert.equal(again.code, 0, again.output)
    assert.match(again.output, /is active already; nothing changed/)

    const nobody = await cli('users', 'activate', '--domain', domain, '--email', `nobody@${domain}.test`)
    assert.equal(nobody.code, 1)
    assert.match(nobody.output, new RegExp(`No user nobody@${domain}\\.test in ${domain}`))
    const noTenant = await cli('users', 'activate', '--domain', 'no-such-domain', '--email', `gone@${domain}.test`)
    assert.equal(noTenant.code, 1)
    assert.match(noTenant.output, /No tenant no-such-domain/)
    const missing = await cli('users', 'activate', '--domain', domain)
    assert.equal(missing.code, 2)
    assert.match(missing.output, /users activate needs --domain and --email/)
    const help = await cli('users', '--help')
    assert.equal(help.code, 0)
    assert.match(help.output, /users activate --domain <d> --email <e> \[--json\]/)
    assert.match(help.output, /users reset-password --domain <d> --email <e>/)
    const wrong = await cli('users', 'frobnicate')
    assert.equal(wrong.code, 2)
    assert.match(wrong.output, /users takes reset-password or activate/)
  })
})
