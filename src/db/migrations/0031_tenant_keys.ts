/**
 * Every tenant-owned table keyed by tenant (issue #46; DECISIONS, "Tenancy"), so that each can be distributed by
 * `tenant_id`: the primary key becomes `(tenant_id, <old key>)` — `(tenant_id, id)` for most; ids stay unique by
 * their sequences and stay what the API shows — every unique constraint and unique index gains `tenant_id` in
 * front (a partial one keeps its WHERE, NULLS NOT DISTINCT stays), every foreign key between tenant-owned tables
 * pairs `tenant_id` with `tenant_id` (same name, same ON DELETE), and an index that only repeated the new primary
 * key (the old `UNIQUE (tenant_id, id)` beside `PRIMARY KEY (id)`, a plain `(tenant_id, id)` index) goes.
 *
 * The statements are derived from the catalog, not listed: a table is tenant-owned when it has `tenant_id`, and
 * what each needs follows from its keys (`plan`, a pure function of what the catalog says). The catalog is read
 * in name order (collation "C"), so a database at migration 0030 always gets the same statements in the same
 * order (`statementsFor` prints them; docs/upgrading.md says how). What cannot be derived — a shared table
 * referring to a tenant-owned one, a tenant_id of another type — stops the migration with the table named, and
 * nothing changes. `touch_role` (migration 0021) is the one function that found a tenant row by id alone: it now
 * names the tenant too.
 *
 * Every key that gains `tenant_id` keeps a plain (non-unique) index on its old columns, named
 * `<table>_<columns>_idx`, unless another index already leads with them: queries that still look a row up by id
 * or by token alone (the token endpoint by client id, a session by its token's hash, joins on `users.id`) keep
 * their index scan until they filter by tenant too. Non-unique indexes are allowed on a distributed table.
 *
 * One transaction; it holds ACCESS EXCLUSIVE locks on the re-keyed tables until it commits (it builds their new
 * keys and checks each re-created foreign key once): docs/upgrading.md gives the time per million rows.
 */
import { sql, type Kysely, type QueryExecutorProvider } from 'kysely'

interface TenantTable {
  name: string
  not_null: boolean
  type: string
}

interface IndexRow {
  table_name: string
  name: string
  constraint_name: string | null
  contype: string | null
  is_primary: boolean
  is_unique: boolean
  nulls_not_distinct: boolean
  partial: boolean
  /** pg_get_indexdef: `CREATE [UNIQUE] INDEX name ON table USING method (keys) [INCLUDE …] [WHERE …]`. */
  def: string
  /** Key columns in order; '' for an expression. */
  columns: string[]
}

interface ForeignKeyRow {
  name: string
  table_name: string
  ref_table: string
  ref_index: string
  columns: string[]
  ref_columns: string[]
  delete_set: string[] | null
  upd: string
  del: string
  match: string
  deferrable: boolean
  deferred: boolean
  validated: boolean
  from_tenant: boolean
  to_tenant: boolean
}

const C = 'COLLATE "C"'

const read = async (db: QueryExecutorProvider) => {
  const tables = await sql<TenantTable>`
    SELECT c.relname AS name, a.attnotnull AS not_null, format_type(a.atttypid, a.atttypmod) AS type
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
     ORDER BY c.relname ${sql.raw(C)}`.execute(db)
  const idType = await sql<{ type: string }>`
    SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
     WHERE a.attrelid = to_regclass('tenants') AND a.attname = 'id'`.execute(db)
  const indexes = await sql<IndexRow>`
    SELECT c.relname AS table_name, i.relname AS name, con.conname AS constraint_name, con.contype::text AS contype,
           x.indisprimary AS is_primary, x.indisunique AS is_unique, x.indnullsnotdistinct AS nulls_not_distinct,
           x.indpred IS NOT NULL AS partial, pg_get_indexdef(x.indexrelid) AS def,
           (SELECT json_agg(coalesce(a.attname::text, '') ORDER BY k.ord)
              FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k (attnum, ord)
              LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
             WHERE k.ord <= x.indnkeyatts) AS columns
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class c ON c.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_constraint con ON con.conindid = x.indexrelid AND con.conrelid = c.oid AND con.contype IN ('p', 'u', 'x')
     WHERE n.nspname = current_schema()
     ORDER BY c.relname ${sql.raw(C)}, i.relname ${sql.raw(C)}`.execute(db)
  const names = (keys: string, rel: string) =>
    sql.raw(`(SELECT json_agg(a.attname::text ORDER BY k.ord) FROM unnest(${keys}) WITH ORDINALITY AS k (attnum, ord)
      JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.attnum)`)
  const foreignKeys = await sql<ForeignKeyRow>`
    SELECT con.conname AS name, src.relname AS table_name, dst.relname AS ref_table, ri.relname AS ref_index,
           ${names('con.conkey', 'con.conrelid')} AS columns, ${names('con.confkey', 'con.confrelid')} AS ref_columns,
           ${names('con.confdelsetcols', 'con.conrelid')} AS delete_set,
           con.confupdtype::text AS upd, con.confdeltype::text AS del, con.confmatchtype::text AS match,
           con.condeferrable AS deferrable, con.condeferred AS deferred, con.convalidated AS validated,
           EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = src.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped) AS from_tenant,
           EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = dst.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped) AS to_tenant
      FROM pg_constraint con
      JOIN pg_class src ON src.oid = con.conrelid
      JOIN pg_class dst ON dst.oid = con.confrelid
      JOIN pg_class ri ON ri.oid = con.conindid
      JOIN pg_namespace n ON n.oid = src.relnamespace
     WHERE con.contype = 'f' AND con.conparentid = 0 AND n.nspname = current_schema()
     ORDER BY src.relname ${sql.raw(C)}, con.conname ${sql.raw(C)}`.execute(db)
  return { tables: tables.rows, idType: idType.rows[0]?.type, indexes: indexes.rows, foreignKeys: foreignKeys.rows }
}

type Catalog = Awaited<ReturnType<typeof read>>

const id = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`)
const list = (columns: string[]) => columns.map(id).join(', ')
/** An identifier within PostgreSQL's 63 bytes (the names made here are ASCII). */
const fit = (name: string) => name.slice(0, 63)
/** What follows ` USING ` in an index definition: method, keys, INCLUDE, NULLS NOT DISTINCT, WHERE. */
const shapeOf = (def: string) => def.slice(def.indexOf(' USING ') + 7)
const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const withTenantFirst = (columns: string[]) => ['tenant_id', ...columns.filter((c) => c !== 'tenant_id')]
const ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' }
const MATCH: Record<string, string> = { f: ' MATCH FULL', s: '', p: ' MATCH PARTIAL' }

/** The statements that make the catalog's schema keyed by tenant, in the order they must run. */
export function plan(catalog: Catalog): string[] {
  const { tables, idType, indexes, foreignKeys } = catalog
  const tenantOwned = new Set(tables.map((t) => t.name))
  const before: string[] = []
  const keys: string[] = []
  const dropped = new Set<string>() // indexes (by name) that go, with every foreign key that leans on one
  const changed = new Set<string>()

  for (const t of tables) {
    if (idType !== undefined && t.type !== idType)
      throw new Error(`${t.name}.tenant_id is ${t.type}, not ${idType}: change it by hand, then migrate again`)
    if (!t.not_null) before.push(`ALTER TABLE ${id(t.name)} ALTER COLUMN tenant_id SET NOT NULL`)
    const own = indexes.filter((x) => x.table_name === t.name)
    const pk = own.find((x) => x.is_primary)
    if (pk === undefined) throw new Error(`table ${t.name} has no primary key: give it one beginning with tenant_id`)
    const rekeyed = own.filter((x) => (x.is_unique || x.contype === 'x') && x.columns[0] !== 'tenant_id')
    for (const x of rekeyed) {
      if (x.contype === 'x' || x.columns.indexOf('tenant_id') > 0)
        throw new Error(`${t.name}: ${x.name} cannot be re-keyed here (an exclusion constraint, or tenant_id inside)`)
    }
    const pkColumns = pk.columns[0] === 'tenant_id' ? pk.columns : withTenantFirst(pk.columns)
    const pkShape = `btree (${list(pkColumns)})`
    // Indexes that would only repeat the new primary key, and the re-keyed ones: both go.
    const repeats = own.filter((x) => !x.is_primary && !rekeyed.includes(x) && shapeOf(x.def) === pkShape)
    const statements: string[] = []
    for (const x of [...repeats, ...rekeyed]) {
      dropped.add(x.name)
      statements.push(
        x.constraint_name === null
          ? `DROP INDEX ${id(x.name)}`
          : `ALTER TABLE ${id(t.name)} DROP CONSTRAINT ${id(x.constraint_name)}`,
      )
    }
    const kept = own.filter((x) => !dropped.has(x.name))
    for (const x of rekeyed) {
      if (x.is_primary)
        statements.push(
          `ALTER TABLE ${id(t.name)} ADD CONSTRAINT ${id(pk.constraint_name ?? pk.name)} PRIMARY KEY (${list(pkColumns)})`,
        )
      else if (x.constraint_name !== null) {
        const columns = withTenantFirst(x.columns)
        const nulls = x.nulls_not_distinct ? ' NULLS NOT DISTINCT' : ''
        statements.push(
          `ALTER TABLE ${id(t.name)} ADD CONSTRAINT ${id(fit(`${t.name}_${columns.join('_')}_key`))} UNIQUE${nulls} (${list(columns)})`,
        )
      } else statements.push(x.def.replace(/ USING (\w+) \(/, ' USING $1 (tenant_id, '))
      // The old columns keep a plain index, unless one that stays already leads with them.
      const plainColumns = !x.partial && x.columns.every((c) => c !== '')
      const covered =
        plainColumns &&
        kept.some(
          (k) => !k.partial && x.columns.every((c, i) => k.columns[i] === c) && shapeOf(k.def).startsWith('btree'),
        )
      if (covered) continue
      const name = fit(plainColumns ? `${t.name}_${x.columns.join('_')}_idx` : `${x.name}_lookup`)
      const on = x.def.slice(x.def.indexOf(' ON ') + 4).replace(' NULLS NOT DISTINCT', '')
      statements.push(`CREATE INDEX ${id(name)} ON ${on}`)
    }
    if (statements.length > 0 || !t.not_null) changed.add(t.name)
    keys.push(...statements)
  }

  const rebuilt = foreignKeys.filter((fk) => {
    if (!fk.to_tenant) return false // to a shared table: as a reference table is used
    if (!fk.from_tenant)
      throw new Error(`${fk.table_name}.${fk.name}: a shared table refers to tenant-owned ${fk.ref_table}`)
    const paired = fk.columns.some((c, i) => c === 'tenant_id' && fk.ref_columns[i] === 'tenant_id')
    return !paired || (tenantOwned.has(fk.ref_table) && dropped.has(fk.ref_index))
  })
  // Every table changed or checked, locked at once in name order before any change: the migration waits for the
  // transactions already running on them, then holds them all, and cannot deadlock with a writer half-way.
  const locked = new Set([...rebuilt.flatMap((fk) => [fk.table_name, fk.ref_table]), ...changed])
  const lock = locked.size === 0 ? [] : [`LOCK TABLE ${list([...locked].sort(byCode))} IN ACCESS EXCLUSIVE MODE`]
  const drops = rebuilt.map((fk) => `ALTER TABLE ${id(fk.table_name)} DROP CONSTRAINT ${id(fk.name)}`)
  const adds = rebuilt.map((fk) => {
    const paired = fk.columns.some((c, i) => c === 'tenant_id' && fk.ref_columns[i] === 'tenant_id')
    if (!paired && fk.columns.includes('tenant_id'))
      throw new Error(`${fk.table_name}.${fk.name} pairs tenant_id with another column: change it by hand`)
    if (!paired && (fk.upd === 'n' || fk.upd === 'd'))
      throw new Error(`${fk.table_name}.${fk.name}: ON UPDATE ${ACTIONS[fk.upd]} would clear tenant_id`)
    const columns = paired ? fk.columns : ['tenant_id', ...fk.columns]
    const refColumns = paired ? fk.ref_columns : ['tenant_id', ...fk.ref_columns]
    // SET NULL / SET DEFAULT on delete names the columns it clears, never tenant_id.
    const clears = fk.delete_set ?? (paired ? null : fk.columns)
    const onDelete = `${ACTIONS[fk.del]}${(fk.del === 'n' || fk.del === 'd') && clears !== null ? ` (${list(clears)})` : ''}`
    const deferrable = fk.deferrable ? ` DEFERRABLE INITIALLY ${fk.deferred ? 'DEFERRED' : 'IMMEDIATE'}` : ''
    return (
      `ALTER TABLE ${id(fk.table_name)} ADD CONSTRAINT ${id(fk.name)} FOREIGN KEY (${list(columns)}) ` +
      `REFERENCES ${id(fk.ref_table)} (${list(refColumns)})${MATCH[fk.match] ?? ''}` +
      `${fk.upd === 'a' ? '' : ` ON UPDATE ${ACTIONS[fk.upd]}`}${fk.del === 'a' ? '' : ` ON DELETE ${onDelete}`}` +
      `${deferrable}${fk.validated ? '' : ' NOT VALID'}`
    )
  })
  return [...lock, ...before, ...drops, ...keys, ...adds]
}

/** `touch_role` (migration 0021) finds the role by tenant and id, as every query of tenant data does. */
const TOUCH_ROLE = `
CREATE OR REPLACE FUNCTION touch_role() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE roles SET updated_at = now() WHERE tenant_id = OLD.tenant_id AND id = OLD.role_id;
  ELSE
    UPDATE roles SET updated_at = now() WHERE tenant_id = NEW.tenant_id AND id = NEW.role_id;
  END IF;
  RETURN NULL;
END $$`

/** The statements this migration runs on `db` (read from its catalog); changes nothing. */
export const statementsFor = async (db: QueryExecutorProvider): Promise<string[]> => plan(await read(db))

export async function up(db: Kysely<unknown>): Promise<void> {
  // The whole plan in one round trip (some 250 statements); the migrator's transaction wraps it.
  await sql.raw([...(await statementsFor(db)), TOUCH_ROLE].join(';\n')).execute(db)
}
