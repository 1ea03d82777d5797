/**
 * `procurement check`: reads every row of every table (each column too, so out-of-line values are read) and
 * compares what it finds with what the service's own bookkeeping says: the table's primary-key index, and the
 * trigger-kept row counts (`row_counts`, summed over its slots per tenant) that lists report as totals.
 * A table file that was truncated or damaged shows here as a read error or as counts that disagree, where
 * the service itself would simply list fewer rows.
 */
import { sql, type Kysely } from 'kysely'
import type { DB } from './schema.ts'

export interface CheckReport {
  tables: number
  rows: number
  problems: string[]
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!

/** Runs `query` in a read-only transaction with only the given scans allowed. */
async function counted<T>(db: Kysely<DB>, scan: 'seq' | 'index', query: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    await sql`set transaction read only`.execute(tx)
    const off = scan === 'seq' ? ['enable_indexscan', 'enable_indexonlyscan', 'enable_bitmapscan'] : ['enable_seqscan']
    for (const setting of off) await sql`select set_config(${setting}, 'off', true)`.execute(tx)
    return query(tx)
  })
}

export async function checkDatabase(db: Kysely<DB>): Promise<CheckReport> {
  const problems: string[] = []
  const { rows: tables } = await sql<{ name: string; has_key: boolean; has_tenant: boolean }>`
    select c.relname as name,
           exists (select 1 from pg_index i where i.indrelid = c.oid and i.indisprimary) as has_key,
           exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped) as has_tenant
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and c.relkind in ('r', 'p')
     order by c.relname`.execute(db)
  const { rows: bookkept } = await sql<{ tenant_id: number; domain: string | null; table_name: string; n: number }>`
    select c.tenant_id, t.domain, c.table_name, sum(c.n)::int8 as n
      from row_counts c left join tenants t on t.id = c.tenant_id
     group by c.tenant_id, t.domain, c.table_name`.execute(db)
  let rows = 0
  for (const { name, has_key, has_tenant } of tables) {
    const table = sql.table(name)
    let seen: number
    try {
      // Every row as text: every page of the table and of its out-of-line (TOAST) storage is read.
      const read = await counted(db, 'seq', (tx) =>
        sql<{ n: number }>`select count(*)::int8 as n, sum(length(t::text))::int8 as bytes from ${table} t`.execute(tx),
      )
      seen = read.rows[0]!.n
      rows += seen
    } catch (error) {
      problems.push(`table ${name} cannot be read: ${messageOf(error)}`)
      continue
    }
    if (has_key) {
      try {
        const indexed = await counted(db, 'index', (tx) =>
          sql<{ n: number }>`select count(*)::int8 as n from ${table}`.execute(tx),
        )
        const n = indexed.rows[0]!.n
        if (n !== seen) problems.push(`table ${name}: ${seen} rows in the table, but its primary key indexes ${n}`)
      } catch (error) {
        problems.push(`table ${name}: its primary key cannot be read: ${messageOf(error)}`)
      }
    }
    const expected = bookkept.filter((b) => b.table_name === name)
    if (expected.length === 0 || !has_tenant) continue
    const { rows: found } = await counted(db, 'seq', (tx) =>
      sql<{
        tenant_id: number
        n: number
      }>`select tenant_id, count(*)::int8 as n from ${table} group by tenant_id`.execute(tx),
    )
    const tenants = new Set([...expected.map((b) => b.tenant_id), ...found.map((f) => f.tenant_id)])
    for (const tenant of tenants) {
      const want = expected.find((b) => b.tenant_id === tenant)
      const have = found.find((f) => f.tenant_id === tenant)?.n ?? 0
      if ((want?.n ?? 0) !== have) {
        const who = want?.domain ?? `#${tenant}`
        problems.push(`table ${name}, tenant ${who}: ${have} rows found, but the service's counts say ${want?.n ?? 0}`)
      }
    }
  }
  return { tables: tables.length, rows, problems }
}
