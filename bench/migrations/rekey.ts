/**
 * How long migration 0031_tenant_keys (every table keyed by tenant, issue #46) holds its locks, on PostgreSQL.
 *
 * A scratch database at the migration before it: the demo tenant and nine sample tenants, then BENCH_ROWS rows
 * (default 1,000,000) in each of six of the largest tables — vendors (already keyed by tenant; five look-up keys
 * checked again), audit_log, request_lines, purchase_order_lines (re-keyed; the line → request line key gains
 * tenant_id), webhook_deliveries (re-keyed; its endpoint key gains tenant_id) and events (untouched: the control)
 * — VACUUM ANALYZE, then the migration twice: statement by statement in a transaction that is rolled back (where
 * the time goes), and for real through the migrator (the lock time: every re-keyed table stays locked from its
 * first statement to the commit). Kept out of `npm run bench` (bench/run.ts runs bench/*.ts only).
 *
 * Run: npx tsx bench/migrations/rekey.ts   (BENCH_ROWS=1000000, BENCH_DATABASE_URL as for the other benchmarks)
 */
import os from 'node:os'
import { Migrator, sql, type Kysely, type Migration } from 'kysely'
import { openPostgres } from '../../src/db/database.ts'
import { migrateToLatest, migrationNames } from '../../src/db/migrate.ts'
import { statementsFor } from '../../src/db/migrations/0031_tenant_keys.ts'
import type { DB } from '../../src/db/schema.ts'
import { createSampleTenant, seedDemo } from '../../src/seed/demo.ts'
import { main } from '../lib/cleanup.ts'
import { envNumber } from '../lib/settings.ts'
import { scratchDatabase } from '../lib/store.ts'

const REKEY = '0031_tenant_keys'
const ROWS = envNumber('BENCH_ROWS', 1_000_000)
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now()
  const result = await work()
  console.log(`${what}: ${seconds(performance.now() - started)}`)
  return result
}

async function migrateUpTo(db: Kysely<DB>, last: string): Promise<void> {
  const migrations: Record<string, Migration> = {}
  for (const name of migrationNames().filter((n) => n <= last))
    migrations[name] = (await import(`../../src/db/migrations/${name}.ts`)) as Migration
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  }).migrateToLatest()
  if (error !== undefined)
    throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`)
}

/** ROWS rows in each of the six tables; vendors, events and deliveries over every tenant, lines in the demo's. */
const FILL = (n: number) => `
  CREATE TEMP TABLE bench_tenants AS
    SELECT row_number() OVER (ORDER BY t.id) - 1 AS k, t.id, min(c.id) AS currency, min(p.id) AS term
      FROM tenants t JOIN currencies c ON c.tenant_id = t.id JOIN payment_terms p ON p.tenant_id = t.id GROUP BY t.id;
  INSERT INTO vendors (tenant_id, name, currency_id, payment_term_id)
    SELECT b.id, 'Vendor ' || g, b.currency, b.term
      FROM generate_series(1, ${n}) g JOIN bench_tenants b ON b.k = g % (SELECT count(*) FROM bench_tenants);
  INSERT INTO audit_log (tenant_id, action, resource_type, resource_id, changes)
    SELECT b.id, 'vendor.created', 'vendor', g::text, '{"name": "Vendor"}'
      FROM generate_series(1, ${n}) g JOIN bench_tenants b ON b.k = g % (SELECT count(*) FROM bench_tenants);
  INSERT INTO events (tenant_id, type, object)
    SELECT b.id, 'vendor.created', jsonb_build_object('id', g)
      FROM generate_series(1, ${n}) g JOIN bench_tenants b ON b.k = g % (SELECT count(*) FROM bench_tenants);
  INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret)
    SELECT id, 'https://hooks.example.com/' || id, '{vendor.created}', 'whsec_bench' FROM bench_tenants;
  INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_xid, event_seq, event_type, status, attempts)
    SELECT e.tenant_id, e.id, '1'::xid8, g, 'vendor.created', 'succeeded', '[{"status": 200}]'
      FROM generate_series(1, ${n}) g JOIN bench_tenants b ON b.k = g % (SELECT count(*) FROM bench_tenants)
      JOIN webhook_endpoints e ON e.tenant_id = b.id;
  INSERT INTO request_lines (tenant_id, request_id, position, description, quantity, unit_price)
    SELECT r.tenant_id, r.id, g % 30000, 'Line ' || g, 1, 9.99
      FROM generate_series(1, ${n}) g
      JOIN (SELECT tenant_id, id, row_number() OVER (ORDER BY id) - 1 AS k FROM purchase_requests) r
        ON r.k = g % (SELECT count(*) FROM purchase_requests);
  INSERT INTO purchase_order_lines (tenant_id, order_id, position, request_line_id, description, quantity, unit_price, amount, tax)
    SELECT l.tenant_id, o.id, l.position, l.id, l.description, 1, 9.99, 9.99, 0
      FROM request_lines l
      JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM purchase_orders) o
        ON o.k = l.id % (SELECT count(*) FROM purchase_orders);`

/** The table a statement of the migration works on. */
const tableOf = (statement: string) =>
  /^ALTER TABLE (\w+)/.exec(statement)?.[1] ?? / ON public\.(\w+)/.exec(statement)?.[1] ?? 'dropped indexes'

await main(async () => {
  const url = await scratchDatabase('rekey')
  const database = openPostgres({ url, timeoutMs: 600_000 })
  const db = database.db
  try {
    const known = migrationNames()
    await timed('migrations before the re-key', () => migrateUpTo(db, known[known.indexOf(REKEY) - 1]!))
    await timed('demo tenant and nine sample tenants', async () => {
      await seedDemo(db)
      for (let i = 1; i <= 9; i++)
        await db.transaction().execute((tx) => createSampleTenant(tx, `bench${i}`, `Bench ${i}`, { documents: false }))
    })
    await timed(`${ROWS.toLocaleString('en')} rows in each of six tables`, () => sql.raw(FILL(ROWS)).execute(db))
    await timed('VACUUM ANALYZE', () => sql`VACUUM ANALYZE`.execute(db))

    const { rows: sizes } = await sql<{ name: string; n: number; size: string }>`
      SELECT relname AS name, n_live_tup AS n, pg_size_pretty(pg_total_relation_size(relid)) AS size
        FROM pg_stat_user_tables WHERE n_live_tup >= 1000 ORDER BY n_live_tup DESC`.execute(db)
    for (const s of sizes) console.log(`  ${s.name}: ${s.n.toLocaleString('en')} rows, ${s.size}`)
    const { rows: settings } = await sql<{ version: string; mwm: string; sb: string }>`
      SELECT version() AS version, current_setting('maintenance_work_mem') AS mwm,
             current_setting('shared_buffers') AS sb`.execute(db)
    console.log(`${settings[0]!.version}; maintenance_work_mem ${settings[0]!.mwm}, shared_buffers ${settings[0]!.sb}`)
    const machine = () =>
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`
    console.log(machine())

    // Where the time goes: each statement timed, then everything rolled back.
    const byTable = new Map<string, number>()
    const slowest: [number, string][] = []
    await db
      .transaction()
      .execute(async (tx) => {
        for (const statement of await statementsFor(tx)) {
          const started = performance.now()
          await sql.raw(statement).execute(tx)
          const ms = performance.now() - started
          byTable.set(tableOf(statement), (byTable.get(tableOf(statement)) ?? 0) + ms)
          slowest.push([ms, statement])
        }
        throw new Error('rolled back')
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error) || error.message !== 'rolled back') throw error
      })
    console.log('\nby table (statement by statement, rolled back):')
    for (const [table, ms] of [...byTable].sort((a, b) => b[1] - a[1]).slice(0, 12))
      console.log(`  ${table.padEnd(28)} ${seconds(ms)}`)
    console.log('slowest statements:')
    for (const [ms, statement] of slowest.sort((a, b) => b[0] - a[0]).slice(0, 10))
      console.log(`  ${seconds(ms).padStart(8)}  ${statement.slice(0, 110)}`)

    const started = performance.now()
    const applied = await migrateToLatest(db)
    const total = performance.now() - started
    console.log(`\n${applied.join(', ')} through the migrator (one transaction, the lock time): ${seconds(total)}`)
    console.log(`per million rows of each table: ${seconds(total / (ROWS / 1_000_000))}; ${machine()}`)
  } finally {
    await database.close()
  }
})
