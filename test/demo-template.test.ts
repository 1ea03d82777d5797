/**
 * The demo ready-made in the build's database (src/seed/demo-template.ts): a first start on a copy dates the
 * buyer's leave from its own day when the build seeded it on an earlier one, removes the marker, and does
 * nothing more on later starts. Seen through the API, as the demo's administrator.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { demoCredentialsToShow } from '../src/seed/demo-credentials.ts'
import { markBuiltDemo } from '../src/seed/demo-template.ts'
import { seedDemo } from '../src/seed/demo.ts'
import { sampleTenant, signedIn, useTestApp, type SampleTenant } from './helpers/app.ts'

const ctx = useTestApp()

const DAY = 86400_000
const dateIn = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10)

async function demoTenant(): Promise<SampleTenant> {
  const rows = await ctx.database.db
    .selectFrom('users as u')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .select(['u.id', 'u.email', 't.id as tenantId'])
    .where('t.domain', '=', 'demo')
    .execute()
  const id = (name: string) => rows.find((u) => u.email === `${name}@example.com`)!.id
  return {
    tenantId: rows[0]!.tenantId,
    domain: 'demo',
    users: { admin: id('admin'), buyer: id('buyer'), requester: id('requester'), manager: id('manager') },
  }
}

const markerCount = async () =>
  (await ctx.database.db.selectFrom('system_state').select('key').where('key', '=', 'demo_template').execute()).length

describe('the demo seeded at build time', () => {
  test('a first start on a later day dates the buyer’s leave from that day, once', async () => {
    await seedDemo(ctx.database.db)
    await markBuiltDemo(ctx.database.db)
    // As a build 20 days ago made it: the leave it set ended six days ago.
    const built = new Date(Date.now() - 20 * DAY).toISOString()
    await sql`update system_state set value = jsonb_build_object('seeded_at', ${built}::text)
      where key = 'demo_template'`.execute(ctx.database.db)
    await sql`update delegations set expected_return_date = ${dateIn(-6)}::date where active`.execute(ctx.database.db)
    const tenant = await demoTenant()
    const { api } = await signedIn(ctx, 'admin', tenant)
    const { id: profile } = await ctx.database.db
      .selectFrom('user_profiles')
      .select('id')
      .where('user_id', '=', tenant.users.buyer)
      .executeTakeFirstOrThrow()
    const delegation = async () => {
      const response = await api({ method: 'GET', url: `/api/v3/users/${profile}/delegation/` })
      assert.equal(response.statusCode, 200, response.body)
      return response.json<{ data: { expected_return_date: string | null; delegatee: unknown } }>().data
    }
    assert.deepEqual(await delegation(), { delegatee: null, expected_return_date: null }, 'the leave is over')

    // What a start runs before it prints the demo's credentials.
    const shown = await demoCredentialsToShow(ctx.database.db, ctx.keys.pepper)
    assert.ok(shown?.client_secret, 'the credentials are made in the same step')
    const after = await delegation()
    assert.equal(after.expected_return_date, dateIn(14), 'two weeks from the first start')
    assert.equal((after.delegatee as { email?: string } | null)?.email, 'admin@example.com')
    assert.equal(await markerCount(), 0, 'the marker is gone')

    await demoCredentialsToShow(ctx.database.db, ctx.keys.pepper) // a start that did not get to print them
    assert.equal((await delegation()).expected_return_date, dateIn(14), 'dated once')
    const leaves = await sql<{ n: number }>`select count(*)::int as n from audit_log
      where tenant_id = ${tenant.tenantId} and action = 'user.delegation.set'`.execute(ctx.database.db)
    assert.equal(leaves.rows[0]!.n, 2, 'the seed’s and the first start’s')
  })

  test('on the day of the build the copy is left as it was, but for the marker', async () => {
    await sampleTenant(ctx) // its buyer is away, as the demo's is
    await sql`insert into system_state (key, value)
      values ('demo_template', jsonb_build_object('seeded_at', ${new Date().toISOString()}::text))
      on conflict (key) do update set value = excluded.value`.execute(ctx.database.db)
    const before = await sql<{ d: string }>`select string_agg(expected_return_date::text, ',' order by id) as d
      from delegations`.execute(ctx.database.db)
    assert.match(before.rows[0]!.d, /\d{4}-\d\d-\d\d/)
    await demoCredentialsToShow(ctx.database.db, ctx.keys.pepper)
    const after = await sql<{ d: string }>`select string_agg(expected_return_date::text, ',' order by id) as d
      from delegations`.execute(ctx.database.db)
    assert.deepEqual(after.rows, before.rows)
    assert.equal(await markerCount(), 0)
  })
})
