/**
 * A bill's invoice number is unique per vendor on its key, not as written (issue #44; DECISIONS, "Bills and
 * matching"): `inv-0042`, `INV 0042`, `ＩＮＶ–0042` and `INV0042` are one number. `bills.number_key` holds the
 * key and a unique index (tenant_id, vendor_id, number_key) replaces the unique constraint on the number
 * itself — over every bill, cancelled ones included, as that constraint was.
 *
 * Existing rows are keyed here, in JavaScript: PostgreSQL's `lower()` follows the database's locale (in the C
 * locale it lowers ASCII only) and has no full case fold, so SQL would not give the service's key. Bills that
 * already share a key (entered before this migration as two spellings of one number) keep their numbers: the
 * first of them (lowest id) keeps the key, each later one gets `<key>#<id>`, which no number's key can be
 * (keys hold letters and digits only) — so a new bill with that number still meets the first, with a 409.
 * Rows are read in pages in key order, so a table of any size is keyed without holding it in memory.
 */
import { sql, type Kysely } from 'kysely'

/**
 * The key as bills/number-key.ts computes it at this migration (a migration is never changed after it ships,
 * so it keeps its own copy; the database layer does not import a resource). NFKC, a full case fold (lower,
 * upper, lower), NFKC again, then only letters and digits; at most 400 code points.
 */
const keyOf = (number: string): string =>
  [
    ...number
      .normalize('NFKC')
      .toLowerCase()
      .toUpperCase()
      .toLowerCase()
      .normalize('NFKC')
      .replace(/[^\p{L}\p{N}]/gu, ''),
  ]
    .slice(0, 400)
    .join('')

const PAGE = 2000

interface Row {
  tenant_id: number
  vendor_id: number
  id: number
  number: string
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE bills ADD COLUMN number_key text`.execute(db)
  let after: Row | undefined
  let vendor = ''
  let seen = new Set<string>()
  for (;;) {
    const page: Row[] = (
      await sql<Row>`SELECT tenant_id, vendor_id, id, number FROM bills
        ${after === undefined ? sql`` : sql`WHERE (tenant_id, vendor_id, id) > (${after.tenant_id}, ${after.vendor_id}, ${after.id})`}
        ORDER BY tenant_id, vendor_id, id LIMIT ${PAGE}`.execute(db)
    ).rows
    if (page.length === 0) break
    const keys = page.map((row) => {
      const of = `${row.tenant_id}:${row.vendor_id}`
      if (of !== vendor) [vendor, seen] = [of, new Set()]
      const key = keyOf(row.number)
      const unique = seen.has(key) ? `${key}#${row.id}` : key
      seen.add(key)
      return { t: row.tenant_id, i: row.id, k: unique }
    })
    await sql`UPDATE bills b SET number_key = k.k
      FROM jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) AS k(t integer, i integer, k text)
      WHERE b.tenant_id = k.t AND b.id = k.i`.execute(db)
    after = page.at(-1)
  }
  await sql
    .raw(
      `ALTER TABLE bills ALTER COLUMN number_key SET NOT NULL;
       CREATE UNIQUE INDEX bills_number_key ON bills (tenant_id, vendor_id, number_key);
       ALTER TABLE bills DROP CONSTRAINT bills_tenant_id_vendor_id_number_key;`,
    )
    .execute(db)
}
