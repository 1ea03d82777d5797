/** The event feed: every write records its event with the change, in commit order (DECISIONS.md, Events). */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import pg from 'pg'
import { sql } from 'kysely'
import { purgeOldEvents } from '../src/db/maintenance.ts'
import { engineUnderTest } from './helpers/db.ts'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

type Api = Awaited<ReturnType<typeof signedIn>>['api']
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, asserted on field by field
type Body = any

const address = (name: string) => ({
  name,
  addressLineOne: `${name} street 1`,
  city: 'Springfield',
  postalCode: '12345',
  state_province: 'IL',
  country: 'United States',
})
const newLocation = {
  name: 'Plant 7',
  currency: 'CAD',
  phoneOne: '+1 555 0100',
  primary_billing_address: address('Billing'),
  primary_shipping_address: address('Receiving'),
}

/** Every event after `after` (all, without), following `next_cursor` to the end. */
async function feed(api: Api, query = '', after?: string): Promise<{ events: Body[]; cursor: string | undefined }> {
  const events: Body[] = []
  let cursor = after
  for (;;) {
    const url = `/api/v3/events/?page_size=7${query}${cursor === undefined ? '' : `&after=${cursor}`}`
    const response = await api({ method: 'GET', url })
    assert.equal(response.statusCode, 200, response.body)
    const body: Body = response.json()
    events.push(...body.data)
    if (body.data.length > 0) assert.equal(body.metadata.next_cursor, body.data.at(-1).id)
    else assert.equal(body.metadata.next_cursor, null)
    if (body.metadata.next_cursor !== null) cursor = body.metadata.next_cursor
    if (!body.metadata.has_more) return { events, cursor }
  }
}

/**
 * A signed-in sample tenant and the id of its newest event (`start`): the sample data is made through the
 * services, so it has events of its own; a test reads only what comes after them.
 */
async function fresh(...args: Parameters<typeof signedIn>) {
  const signed = await signedIn(...args)
  const { cursor } = await feed(signed.api)
  return { ...signed, start: cursor }
}

const from = (start: string | undefined) => (start === undefined ? '' : `&after=${start}`)

describe('events recorded with each write', () => {
  test('vendors, locations and users: one event per write, the object exactly as GET returns it', async () => {
    const { api, start } = await fresh(ctx)
    const vendor = (await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Acme' } })).json().data
    await api({ method: 'PATCH', url: `/api/v3/vendors/${vendor.id}/`, payload: { city: 'Oslo' } })
    const location = (await api({ method: 'POST', url: '/api/v2/locations/', payload: newLocation })).json().data
    const put = await api({
      method: 'PUT',
      url: `/api/v2/locations/${location.id}/`,
      payload: { ...newLocation, name: 'Plant 8' },
    })
    assert.equal(put.statusCode, 200, put.body)
    // A PUT that changes nothing is no change: no event.
    await api({ method: 'PUT', url: `/api/v2/locations/${location.id}/`, payload: { ...newLocation, name: 'Plant 8' } })
    const user = { email: 'ev@example.org', firstName: 'Eve', lastName: 'Vent', location: null, department: null }
    const created = (await api({ method: 'POST', url: '/api/v3/users/', payload: user })).json().data
    await api({ method: 'PUT', url: `/api/v3/users/${created.id}/`, payload: { ...user, firstName: 'Eva' } })
    assert.equal((await api({ method: 'DELETE', url: `/api/v3/users/${created.id}/` })).statusCode, 204)

    const { events } = await feed(api, '', start)
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'vendor.created',
        'vendor.updated',
        'location.created',
        'location.updated',
        'user.created',
        'user.updated',
        'user.deactivated',
      ],
    )
    const get = async (url: string) => (await api({ method: 'GET', url })).json().data
    assert.deepEqual(events[1].data.object, await get(`/api/v3/vendors/${vendor.id}/`))
    assert.equal(events[0].data.object.city, '')
    assert.deepEqual(events[3].data.object, await get(`/api/v2/locations/${location.id}/`))
    assert.deepEqual(events[6].data.object, await get(`/api/v3/users/${created.id}/`))
    assert.equal(events[6].data.object.is_active, false)
    const ids = events.map((e) => e.id)
    assert.deepEqual([...ids].sort(), ids, 'ids sort in feed order')
    for (const e of events) {
      assert.match(e.id, /^evt_[0-9a-f]{32}$/)
      assert.ok(!Number.isNaN(Date.parse(e.created_at)))
      const one = await api({ method: 'GET', url: `/api/v3/events/${e.id}/` })
      assert.deepEqual(one.json(), { metadata: {}, data: e })
    }
  })

  test('a batch of users: one user.created per user; an invalid batch records nothing', async () => {
    const { api, start } = await fresh(ctx)
    const batch = [1, 2, 3].map((i) => ({ email: `b${i}@example.org`, first_name: `B${i}`, last_name: 'X' }))
    const created = await api({ method: 'POST', url: '/api/v3/users/', payload: batch })
    assert.equal(created.statusCode, 201, created.body)
    const bad = await api({ method: 'POST', url: '/api/v3/users/', payload: [...batch, { email: 'x' }] })
    assert.equal(bad.statusCode, 400)
    const { events } = await feed(api, '&type=user.created', start)
    assert.deepEqual(
      events.map((e) => e.data.object.email),
      batch.map((b) => b.email),
    )
  })

  test('a write whose transaction rolls back at commit leaves no event', async () => {
    const { api, start } = await fresh(ctx)
    // The event is written, then the commit fails (a deferred check, here one that refuses one name).
    await sql
      .raw(
        `CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN IF NEW.name = 'Doomed' THEN RAISE EXCEPTION 'refused at commit'; END IF; RETURN NULL; END $$;
         CREATE CONSTRAINT TRIGGER vendors_doomed AFTER INSERT ON vendors DEFERRABLE INITIALLY DEFERRED
           FOR EACH ROW EXECUTE FUNCTION refuse_doomed();`,
      )
      .execute(ctx.database.db)
    try {
      const doomed = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Doomed' } })
      assert.equal(doomed.statusCode, 500)
      const kept = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Kept' } })
      assert.equal(kept.statusCode, 201)
    } finally {
      await sql.raw('DROP TRIGGER vendors_doomed ON vendors').execute(ctx.database.db)
    }
    const { events } = await feed(api, '', start)
    assert.deepEqual(
      events.map((e) => e.data.object.name),
      ['Kept'],
    )
  })
})

describe('the feed', () => {
  test('cursor paging, type and prefix filters, page sizes, and bad queries', async () => {
    const { api, start } = await fresh(ctx)
    for (let i = 0; i < 12; i++) await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: `V${i}` } })
    await api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: { email: 'f@example.org', firstName: 'F', lastName: 'G', location: null, department: null },
    })
    const all = await feed(api, '', start)
    assert.equal(all.events.length, 13)
    const first = (await api({ method: 'GET', url: `/api/v3/events/?page_size=5${from(start)}` })).json()
    assert.equal(first.data.length, 5)
    assert.equal(first.metadata.has_more, true)
    const rest = await feed(api, '', first.metadata.next_cursor)
    assert.deepEqual(
      [...first.data, ...rest.events].map((e: Body) => e.id),
      all.events.map((e) => e.id),
    )
    const empty = (await api({ method: 'GET', url: `/api/v3/events/?after=${all.cursor}` })).json()
    assert.deepEqual(empty, { metadata: { next_cursor: null, has_more: false }, data: [] })
    assert.equal((await feed(api, '&type=vendor.*', start)).events.length, 12)
    assert.equal((await feed(api, '&type=user.created', start)).events.length, 1)
    assert.equal((await feed(api, '&type=user.updated', start)).events.length, 0)
    const big = (await api({ method: 'GET', url: `/api/v3/events/?page_size=5000${from(start)}` })).json()
    assert.equal(big.data.length, 13)
    assert.equal((await api({ method: 'GET', url: `/api/v3/events/?${from(start).slice(1)}` })).json().data.length, 13)
    for (const query of [
      'after=1',
      'after=evt_zz',
      'type=vendor',
      'type=*',
      'page_size=0',
      'page_size=x',
      'x=1',
      `after=evt_${'0'.repeat(16)}${'f'.repeat(16)}`,
    ]) {
      const response = await api({ method: 'GET', url: `/api/v3/events/?${query}` })
      assert.equal(response.statusCode, 400, query)
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/)
    }
    const missing = await api({ method: 'GET', url: `/api/v3/events/evt_${'0'.repeat(32)}/` })
    assert.equal(missing.statusCode, 404)
    const impossible = await api({ method: 'GET', url: `/api/v3/events/evt_${'f'.repeat(32)}/` })
    assert.equal(impossible.statusCode, 404)
  })

  test('the feed orders by transaction id as a number, also where its digits grow (99 before 100)', async () => {
    // Not `fresh`: its read of the feed numbers the tenant's events (migration 0012), after which no event of an
    // older, long-finished transaction can appear — as none can outside a test that writes rows by hand.
    const { api, tenant } = await signedIn(ctx)
    // Transaction ids of long-finished transactions, older than every other event of the tenant.
    for (const [xid, name] of [
      ['100', 'second'],
      ['99', 'first'],
    ])
      await sql`INSERT INTO events (tenant_id, xid, seq, type, object)
                VALUES (${tenant.tenantId}, ${xid}::xid8, 1, 'vendor.created', ${JSON.stringify({ name })}::jsonb)`.execute(
        ctx.database.db,
      )
    const page = (await api({ method: 'GET', url: '/api/v3/events/?page_size=2' })).json()
    assert.deepEqual(
      page.data.map((e: Body) => e.data.object.name),
      ['first', 'second'],
    )
    const all = await feed(api)
    const ids = all.events.map((e) => e.id as string)
    assert.deepEqual([...ids].sort(), ids, 'ids sort in feed order')
  })

  test('another tenant sees none of the events; reading needs superuser or nav_setting', async () => {
    const a = await fresh(ctx)
    const b = await fresh(ctx)
    await a.api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Mine' } })
    const mine = (await feed(a.api, '', a.start)).events
    assert.equal(mine.length, 1)
    assert.equal((await feed(b.api, '', b.start)).events.length, 0)
    assert.equal((await b.api({ method: 'GET', url: `/api/v3/events/${mine[0].id}/` })).statusCode, 404)
    const buyer = await signedIn(ctx, 'buyer', a.tenant)
    assert.equal((await buyer.api({ method: 'GET', url: '/api/v3/events/' })).statusCode, 403)
  })

  test('concurrent writes: paging while they commit skips no event', async () => {
    const { api, start } = await fresh(ctx)
    const seen: string[] = []
    let cursor = start
    const writes = Array.from({ length: 40 }, (_, i) =>
      api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: `C${i}` } }),
    )
    let done = false
    const all = Promise.all(writes).finally(() => (done = true))
    while (!done) {
      const page = await feed(api, '', cursor)
      seen.push(...page.events.map((e) => e.id))
      cursor = page.cursor
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    await all
    seen.push(...(await feed(api, '', cursor)).events.map((e) => e.id))
    assert.equal(new Set(seen).size, 40)
    assert.equal(seen.length, 40)
  })

  test(
    'an event whose transaction commits late is served after, never skipped',
    { skip: engineUnderTest !== 'postgres' && 'needs two sessions (PostgreSQL)' },
    async () => {
      const { api, start } = await fresh(ctx)
      // The slow write stops after its event is written (an advisory lock held here) until we let it go.
      await sql
        .raw(
          `CREATE FUNCTION hold_slow() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN IF NEW.object->>'name' = 'Slow' THEN PERFORM pg_advisory_xact_lock(4242); END IF; RETURN NULL; END $$;
           CREATE TRIGGER events_hold_slow AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION hold_slow();`,
        )
        .execute(ctx.database.db)
      const holder = new pg.Client({ connectionString: ctx.database.url! })
      await holder.connect()
      try {
        await holder.query('SELECT pg_advisory_lock(4242)')
        const slow = api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Slow' } })
        // Wait until the slow write is waiting on the lock (its event is written, not committed).
        for (;;) {
          const { rows } = await holder.query(
            "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
          )
          if (rows[0].n > 0) break
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        const fast = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Fast' } })
        assert.equal(fast.statusCode, 201)
        const before = await feed(api, '', start)
        assert.deepEqual(before.events, [], 'nothing is served while an earlier transaction is open')
        await holder.query('SELECT pg_advisory_unlock(4242)')
        assert.equal((await slow).statusCode, 201)
        const after = await feed(api, '', before.cursor)
        assert.deepEqual(
          after.events.map((e) => e.data.object.name),
          ['Slow', 'Fast'],
        )
      } finally {
        await holder.end()
        await sql.raw('DROP TRIGGER events_hold_slow ON events').execute(ctx.database.db)
      }
    },
  )

  test('events older than 30 days are deleted by housekeeping; newer ones stay', async () => {
    const { api, tenant, start } = await fresh(ctx)
    for (const name of ['Old', 'New']) await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name } })
    await sql`UPDATE events SET created_at = now() - interval '31 days'
              WHERE tenant_id = ${tenant.tenantId} AND object->>'name' = 'Old'`.execute(ctx.database.db)
    assert.ok((await purgeOldEvents(ctx.database)) >= 1)
    assert.deepEqual(
      (await feed(api, '', start)).events.map((e) => e.data.object.name),
      ['New'],
    )
  })
})
