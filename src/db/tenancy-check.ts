/**
 * The tenancy rules of DECISIONS ("Tenancy"), checked over the database catalog: what a schema must be for every
 * tenant-owned table to be distributed by `tenant_id` (PostgreSQL with Citus), one rule per breach.
 *
 * Which tables are which: a table with a `tenant_id` column is tenant-owned; every other table must be named in
 * `SHARED_TABLES` — so a new table without a tenant is a decision someone wrote down, never an accident. For a
 * tenant-owned table:
 * - `tenant_id` is NOT NULL and of the type of `tenants.id`;
 * - it has a primary key, and the key begins with `tenant_id` (a shard move copies rows by it);
 * - every unique constraint, unique index and exclusion constraint begins with `tenant_id`;
 * - every foreign key to another tenant-owned table pairs `tenant_id` with `tenant_id`.
 * For a shared table: no foreign key to a tenant-owned table (tenant-owned → shared is how a reference table is
 * used, and is allowed). Only the current schema is read; partitions are judged by their parent.
 */
import { sql, type Kysely } from 'kysely'
import type { DB } from './schema.ts'

/**
 * The tables that belong to no tenant: the tenants themselves, the fixed permission keys, process-wide state and
 * the migrator's own two tables. Under Citus these are reference tables (copied to every node) or stay local.
 */
export const SHARED_TABLES: readonly string[] = [
  'tenants',
  'permissions',
  'system_state',
  'schema_migrations',
  'schema_migrations_lock',
]

export type TenancyRule =
  | 'listed'
  | 'tenant-id-not-null'
  | 'tenant-id-type'
  | 'primary-key'
  | 'unique'
  | 'foreign-key'
  | 'shared-references-tenant'

export interface TenancyBreach {
  table: string
  rule: TenancyRule
  /** One sentence naming the table, the object and the rule. */
  message: string
}

interface TableRow {
  name: string
  has_tenant: boolean
  not_null: boolean
  tenant_type: string | null
}

interface KeyRow {
  table_name: string
  index_name: string
  constraint_name: string | null
  is_primary: boolean
  is_exclusion: boolean
  tenant_first: boolean
  first_key: string
}

interface ForeignKeyRow {
  name: string
  from_table: string
  to_table: string
  from_tenant: boolean
  to_tenant: boolean
  matched: boolean
}

const tablesOf = (db: Kysely<DB>) =>
  sql<TableRow>`
    SELECT c.relname AS name, a.attnum IS NOT NULL AS has_tenant, coalesce(a.attnotnull, false) AS not_null,
           CASE WHEN a.attnum IS NULL THEN NULL ELSE format_type(a.atttypid, a.atttypmod) END AS tenant_type
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
     ORDER BY c.relname`.execute(db)

/** The type of `tenants.id`, the one every `tenant_id` must have (undefined: no tenants table). */
const tenantIdType = async (db: Kysely<DB>): Promise<string | undefined> =>
  (
    await sql<{ type: string }>`
      SELECT format_type(a.atttypid, a.atttypmod) AS type
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relname = 'tenants' AND a.attname = 'id'`.execute(db)
  ).rows[0]?.type

/** Primary keys, unique indexes (constraints or not) and exclusion constraints, with whether tenant_id leads. */
const keysOf = (db: Kysely<DB>) =>
  sql<KeyRow>`
    SELECT c.relname AS table_name, i.relname AS index_name, con.conname AS constraint_name,
           x.indisprimary AS is_primary, x.indisexclusion AS is_exclusion,
           coalesce(x.indkey[0] = a.attnum, false) AS tenant_first,
           pg_get_indexdef(x.indexrelid, 1, true) AS first_key
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class c ON c.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
      LEFT JOIN pg_constraint con ON con.conindid = x.indexrelid AND con.conrelid = c.oid AND con.contype IN ('p', 'u', 'x')
     WHERE n.nspname = current_schema() AND (x.indisunique OR x.indisexclusion) AND NOT c.relispartition
     ORDER BY c.relname, i.relname`.execute(db)

/** Foreign keys, with whether each side has tenant_id and whether the key pairs the two. */
const foreignKeysOf = (db: Kysely<DB>) =>
  sql<ForeignKeyRow>`
    SELECT con.conname AS name, src.relname AS from_table, dst.relname AS to_table,
           sa.attnum IS NOT NULL AS from_tenant, da.attnum IS NOT NULL AS to_tenant,
           coalesce((SELECT bool_or(k.s = sa.attnum AND k.d = da.attnum)
                       FROM unnest(con.conkey, con.confkey) AS k (s, d)), false) AS matched
      FROM pg_constraint con
      JOIN pg_class src ON src.oid = con.conrelid
      JOIN pg_class dst ON dst.oid = con.confrelid
      JOIN pg_namespace n ON n.oid = src.relnamespace
      LEFT JOIN pg_attribute sa ON sa.attrelid = src.oid AND sa.attname = 'tenant_id' AND NOT sa.attisdropped
      LEFT JOIN pg_attribute da ON da.attrelid = dst.oid AND da.attname = 'tenant_id' AND NOT da.attisdropped
     WHERE con.contype = 'f' AND con.conparentid = 0 AND n.nspname = current_schema()
     ORDER BY src.relname, con.conname`.execute(db)

/** Every breach of the tenancy rules in the current schema, in table order; none when the schema is ready. */
export async function checkTenancy(db: Kysely<DB>): Promise<TenancyBreach[]> {
  const [{ rows: tables }, idType, { rows: keys }, { rows: foreignKeys }] = await Promise.all([
    tablesOf(db),
    tenantIdType(db),
    keysOf(db),
    foreignKeysOf(db),
  ])
  const breaches: TenancyBreach[] = []
  const breach = (table: string, rule: TenancyRule, message: string) => breaches.push({ table, rule, message })
  const tenantOwned = new Set(tables.filter((t) => t.has_tenant).map((t) => t.name))

  for (const t of tables) {
    const shared = SHARED_TABLES.includes(t.name)
    if (!t.has_tenant) {
      if (!shared)
        breach(t.name, 'listed', `Table ${t.name} has no tenant_id and is not listed as shared (SHARED_TABLES).`)
      continue
    }
    if (shared) breach(t.name, 'listed', `Table ${t.name} is listed as shared but has a tenant_id column.`)
    if (!t.not_null)
      breach(t.name, 'tenant-id-not-null', `Table ${t.name}: tenant_id may be null; it must be NOT NULL.`)
    if (idType !== undefined && t.tenant_type !== idType)
      breach(
        t.name,
        'tenant-id-type',
        `Table ${t.name}: tenant_id is ${t.tenant_type ?? 'missing'}, not ${idType} as tenants.id; it must be one type everywhere.`,
      )
    if (!keys.some((k) => k.table_name === t.name && k.is_primary))
      breach(t.name, 'primary-key', `Table ${t.name} has no primary key; it needs one beginning with tenant_id.`)
  }

  for (const k of keys) {
    if (!tenantOwned.has(k.table_name) || k.tenant_first) continue
    if (k.is_primary) {
      breach(
        k.table_name,
        'primary-key',
        `Table ${k.table_name}: primary key ${k.constraint_name ?? k.index_name} begins with ${k.first_key}, not tenant_id.`,
      )
    } else {
      const what = k.is_exclusion
        ? `exclusion constraint ${k.constraint_name ?? k.index_name}`
        : k.constraint_name === null
          ? `unique index ${k.index_name}`
          : `unique constraint ${k.constraint_name}`
      breach(k.table_name, 'unique', `Table ${k.table_name}: ${what} begins with ${k.first_key}, not tenant_id.`)
    }
  }

  for (const fk of foreignKeys) {
    if (!fk.to_tenant) continue // to a shared table (or between shared tables): as a reference table is used
    if (!fk.from_tenant)
      breach(
        fk.from_table,
        'shared-references-tenant',
        `Table ${fk.from_table}: foreign key ${fk.name} makes a shared table refer to tenant-owned ${fk.to_table}.`,
      )
    else if (!fk.matched)
      breach(
        fk.from_table,
        'foreign-key',
        `Table ${fk.from_table}: foreign key ${fk.name} to tenant-owned ${fk.to_table} does not pair tenant_id with tenant_id.`,
      )
  }
  return breaches.sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0))
}
