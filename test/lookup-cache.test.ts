/**
 * Vendor look-ups (terms and methods) from the in-process cache: a warm vendor read is one statement (no
 * look-up per row), and a look-up changed behind the service — renamed, switched off — is shown as it is
 * now: within a second, on one tenant's entries only, and through a lost listening connection.
 */
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, test } from 'node:test'
import { sql, type KyselyPlugin } from 'kysely'
import { buildApp } from '../src/app.ts'
import { signedIn, useTestApp, type TestContext } from './helpers/app.ts'
import { engineUnderTest } from './helpers/db.ts'

/** Polls `check` until it holds, for at most `ms`. */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > ms) assert.fail(`${what}: not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

interface Ref {
  id: number
  name: string
  active: boolean
}
interface VendorBody {
  id: number
  payment_term_ref: Ref | null
  shipping_term_ref: Ref | null
  payment_method_ref: Ref | null
  shipping_method_ref: Ref | null
}

/** The app again, on a database whose statements are counted; a tenant with three vendors naming look-ups. */
async function countedApp(ctx: TestContext) {
  let statements = 0
  const counter: KyselyPlugin = {
    // Counted as they run (a query compiled once is built, and seen by transformQuery, only once).
    transformQuery: (args) => args.node,
    transformResult: (args) => (statements++, Promise.resolve(args.result)),
  }
  const database = { ...ctx.database, db: ctx.database.db.withPlugin(counter) }
  const app = await buildApp({
    config: { ...ctx.config, RATE_LIMIT_PER_MINUTE: 0 },
    database,
    keys: ctx.keys,
    logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
    checkResponses: true,
  })
  const tenant = async () => {
    const { token, tenant } = await signedIn(ctx)
    const call = async <T>(url: string, method: 'GET' | 'POST' = 'GET', payload?: object): Promise<T> => {
      const response = await app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' },
        ...(payload ? { payload } : {}),
      })
      assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
      return response.json<{ data: T }>().data
    }
    const first = async (path: string) => (await call<Ref[]>(`/api/v3/${path}/?page_size=100`))[0]!
    const [term, shipping, method, carrier] = await Promise.all(
      ['payment-terms', 'shipping-terms', 'payment-methods', 'shipping-methods'].map(first),
    )
    const ids: number[] = []
    for (const name of ['Alpha', 'Beta', 'Gamma'])
      ids.push(
        (
          await call<VendorBody>('/api/v3/vendors/', 'POST', {
            name,
            payment_term_ref: term!.id,
            shipping_term_ref: shipping!.id,
            payment_method_ref: method!.id,
            shipping_method_ref: carrier!.id,
          })
        ).id,
      )
    const list = () => call<VendorBody[]>('/api/v3/vendors/?page_size=100')
    return { tenantId: tenant.tenantId, term: term!, call, list, ids }
  }
  return {
    app,
    tenant,
    /** How many statements `work` ran. */
    count: async (work: () => Promise<unknown>): Promise<number> => {
      statements = 0
      await work()
      return statements
    },
  }
}

describe('vendor look-ups from memory', () => {
  const ctx = useTestApp()

  test('a warm vendor page or vendor is one statement, however many look-ups its rows name', async () => {
    const { app, tenant, count } = await countedApp(ctx)
    try {
      const t = await tenant()
      const page = await t.list()
      const ours = page.filter((v) => t.ids.includes(v.id))
      assert.equal(ours.length, 3)
      for (const vendor of ours) assert.equal(vendor.payment_term_ref?.name, t.term.name)
      assert.equal(await count(() => t.list()), 1, 'the page with its total, no look-up read')
      assert.equal(await count(() => t.call(`/api/v3/vendors/${t.ids[0]}/`)), 1)
      // Same answers from memory as from the database.
      assert.deepEqual(await t.list(), page)
    } finally {
      await app.close()
    }
  })

  test("a look-up changed behind the service is shown as it is now; other tenants' stay warm", async () => {
    const { app, tenant, count } = await countedApp(ctx)
    try {
      const [t, other] = [await tenant(), await tenant()]
      await t.list()
      await other.list()
      const renamed = `Renamed ${t.term.id}`
      await sql`update payment_terms set name = ${renamed}, active = false where id = ${t.term.id}`.execute(
        ctx.database.db,
      )
      await within(1000, 'rename seen', async () => {
        const refs = (await t.list()).filter((v) => t.ids.includes(v.id)).map((v) => v.payment_term_ref)
        return refs.every((ref) => ref?.name === renamed && !ref.active)
      })
      assert.equal(await count(() => t.call(`/api/v3/vendors/${t.ids[1]}/`)), 1, 'warm again')
      assert.equal(await count(() => other.list()), 1, "the other tenant's look-ups were not dropped")
      assert.equal((await other.list())[0]!.payment_term_ref?.name, other.term.name)
    } finally {
      await app.close()
    }
  })

  const skip = engineUnderTest !== 'postgres' && 'PostgreSQL-only: the embedded database has no connection to lose'
  test(
    'a lost listening connection: nothing stale is served, and the cache works again once back',
    { skip },
    async () => {
      const { app, tenant, count } = await countedApp(ctx)
      try {
        const t = await tenant()
        await t.list()
        const listeners = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where application_name = 'procurement-listen' and datname = current_database()`
        const before = (await listeners.execute(ctx.database.db)).rows[0]!.n
        // Cut the listeners and rename in the same breath: the change can only be learnt from the database.
        await sql`select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'procurement-listen' and datname = current_database()`.execute(ctx.database.db)
        await sql`update payment_terms set name = 'While cut' where id = ${t.term.id}`.execute(ctx.database.db)
        await within(1500, 'rename seen while the listener is down', async () =>
          (await t.list()).every((v) => !t.ids.includes(v.id) || v.payment_term_ref?.name === 'While cut'),
        )
        await within(
          5000,
          'listeners back',
          async () => (await listeners.execute(ctx.database.db)).rows[0]!.n === before,
        )
        await within(1000, 'warm again', async () => (await t.list(), (await count(() => t.list())) === 1))
        await sql`update payment_terms set name = 'After reconnect' where id = ${t.term.id}`.execute(ctx.database.db)
        await within(1000, 'rename seen after reconnect', async () =>
          (await t.list()).every((v) => !t.ids.includes(v.id) || v.payment_term_ref?.name === 'After reconnect'),
        )
      } finally {
        await app.close()
      }
    },
  )
})
