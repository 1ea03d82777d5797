/**
 * The tenancy rules (DECISIONS, "Tenancy"; src/db/tenancy-check.ts) on the engine under test: a freshly migrated
 * database breaks none of them, a table that breaks one is named with the rule, and every upsert in the
 * database's own functions still finds the unique index its ON CONFLICT names (migration 0031 re-keyed many).
 * test/upgrade.test.ts runs the re-key on a database with data.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { checkTenancy, type TenancyRule } from '../src/db/tenancy-check.ts'
import { testDatabase, type TestDatabase } from './helpers/db.ts'

let database: TestDatabase
before(async () => {
  database = await testDatabase()
})
after(() => database.close())

test('a freshly migrated database breaks no tenancy rule', async () => {
  assert.deepEqual(
    (await checkTenancy(database.db)).map((b) => b.message),
    [],
  )
})

test('the check names the table and the rule of every breach', async () => {
  await sql
    .raw(
      `CREATE TABLE tenancy_probe_loose (id integer PRIMARY KEY, tenant_id bigint, code text UNIQUE);
       CREATE TABLE tenancy_probe_keyless (tenant_id integer NOT NULL REFERENCES tenants (id), note text);
       CREATE TABLE tenancy_probe_child (
         tenant_id integer NOT NULL, id integer NOT NULL, loose_id integer REFERENCES tenancy_probe_loose (id),
         PRIMARY KEY (tenant_id, id));
       CREATE UNIQUE INDEX tenancy_probe_child_loose ON tenancy_probe_child (loose_id) WHERE loose_id IS NOT NULL;
       CREATE TABLE tenancy_probe_shared (
         id integer PRIMARY KEY, vendor_tenant integer, vendor_id integer,
         FOREIGN KEY (vendor_tenant, vendor_id) REFERENCES vendors (tenant_id, id));`,
    )
    .execute(database.db)
  try {
    const breaches = await checkTenancy(database.db)
    const found = breaches.map((b) => `${b.table} ${b.rule}`)
    const expected: [string, TenancyRule][] = [
      ['tenancy_probe_child', 'foreign-key'],
      ['tenancy_probe_child', 'unique'],
      ['tenancy_probe_keyless', 'primary-key'],
      ['tenancy_probe_loose', 'tenant-id-not-null'],
      ['tenancy_probe_loose', 'tenant-id-type'],
      ['tenancy_probe_loose', 'primary-key'],
      ['tenancy_probe_loose', 'unique'],
      ['tenancy_probe_shared', 'listed'],
      ['tenancy_probe_shared', 'shared-references-tenant'],
    ]
    assert.deepEqual(found.sort(), expected.map(([table, rule]) => `${table} ${rule}`).sort())
    for (const b of breaches) assert.ok(b.message.includes(b.table), `the sentence names its table: ${b.message}`)
    const sentence = (rule: TenancyRule, table: string) =>
      breaches.find((b) => b.rule === rule && b.table === table)?.message
    assert.equal(
      sentence('primary-key', 'tenancy_probe_loose'),
      'Table tenancy_probe_loose: primary key tenancy_probe_loose_pkey begins with id, not tenant_id.',
    )
    assert.equal(
      sentence('tenant-id-type', 'tenancy_probe_loose'),
      'Table tenancy_probe_loose: tenant_id is bigint, not integer as tenants.id; it must be one type everywhere.',
    )
    assert.match(sentence('unique', 'tenancy_probe_child') ?? '', /unique index tenancy_probe_child_loose/)
    assert.match(sentence('foreign-key', 'tenancy_probe_child') ?? '', /tenancy_probe_child_loose_id_fkey/)
  } finally {
    await sql
      .raw('DROP TABLE tenancy_probe_shared, tenancy_probe_child, tenancy_probe_keyless, tenancy_probe_loose CASCADE')
      .execute(database.db)
  }
  assert.deepEqual(await checkTenancy(database.db), [])
})

/** `INSERT INTO <table> … ON CONFLICT (<columns>)` in each statement of each function of the schema. */
function upsertsOf(source: string): { table: string; columns: string[] }[] {
  const found: { table: string; columns: string[] }[] = []
  for (const statement of source.split(';')) {
    const upsert = /INSERT\s+INTO\s+(\w+)[\s\S]*?ON\s+CONFLICT\s*\(([^)]*)\)/i.exec(statement)
    if (upsert !== null)
      found.push({ table: upsert[1]!, columns: upsert[2]!.split(',').map((c) => c.trim().toLowerCase()) })
  }
  return found
}

test('every ON CONFLICT in the database’s functions names the columns of a unique index', async () => {
  const { rows: functions } = await sql<{ name: string; source: string }>`
    SELECT p.proname AS name, p.prosrc AS source FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = current_schema() ORDER BY 1`.execute(database.db)
  const { rows: keys } = await sql<{ table_name: string; columns: string[] }>`
    SELECT c.relname AS table_name,
           (SELECT json_agg(a.attname::text) FROM pg_attribute a
             WHERE a.attrelid = x.indrelid AND a.attnum = ANY (x.indkey::int2[])) AS columns
      FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND x.indisunique AND x.indpred IS NULL AND x.indexprs IS NULL`.execute(
    database.db,
  )
  const upserts = functions.flatMap((f) => upsertsOf(f.source).map((u) => ({ ...u, fn: f.name })))
  const kept = ['count_inserted', 'count_deleted', 'number_events', 'pending_counts_updated', 'order_status_counted']
  for (const fn of kept)
    assert.ok(
      upserts.some((u) => u.fn === fn),
      `the upsert of ${fn}() is found`,
    )
  for (const u of upserts) {
    const wanted = [...u.columns].sort().join(',')
    assert.ok(
      keys.some((k) => k.table_name === u.table && [...k.columns].sort().join(',') === wanted),
      `${u.fn}(): ON CONFLICT (${u.columns.join(', ')}) on ${u.table} has a unique index on exactly those columns`,
    )
  }
})
