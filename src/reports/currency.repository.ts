/** The tenant's base currency: the code every report amount is in. */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export async function baseCurrency(db: Kysely<DB>, tenantId: number): Promise<string> {
  const row = await db
    .selectFrom('currencies')
    .select('name')
    .where('tenant_id', '=', tenantId)
    .where('base', '=', true)
    .executeTakeFirst()
  return row?.name ?? 'USD'
}
