/** SQL for accounts. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { listSql } from '../db/list.ts'
import type { DB } from '../db/schema.ts'
import { AccountListQuery } from './schema.ts'

const selectAccounts = (db: Kysely<DB>) =>
  db.selectFrom('accounts as a').select(['a.id', 'a.code', 'a.name', 'a.active', 'a.tenant_id'])
export type AccountRow = Awaited<ReturnType<ReturnType<typeof selectAccounts>['executeTakeFirstOrThrow']>>

export const pageOfAccounts = listSql(AccountListQuery, {
  select: selectAccounts,
  tenant: 'a.tenant_id',
  id: 'a.id',
  order: { code: 'a.code' },
  search: ['a.code', 'a.name'],
  filters: { active: 'a.active' },
})

export const findAccount = (db: Kysely<DB>, tenantId: number, id: number, lock = false) => {
  let q = selectAccounts(db).where('a.tenant_id', '=', tenantId).where('a.id', '=', id)
  if (lock) q = q.forUpdate()
  return q.executeTakeFirst()
}

/** The account whose code is `code` ignoring case, other than `except`. */
export const findByCode = (db: Kysely<DB>, tenantId: number, code: string, except?: number) => {
  let q = selectAccounts(db)
    .where('a.tenant_id', '=', tenantId)
    .where(sql<boolean>`lower(a.code) = lower(${code})`)
  if (except !== undefined) q = q.where('a.id', '<>', except)
  return q.executeTakeFirst()
}

export interface AccountValues {
  code: string
  name: string
  active: boolean
}

export const insertAccount = async (db: Kysely<DB>, tenantId: number, v: AccountValues) =>
  (
    await db
      .insertInto('accounts')
      .values({ tenant_id: tenantId, ...v })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id

export const updateAccount = (db: Kysely<DB>, tenantId: number, id: number, v: AccountValues) =>
  db
    .updateTable('accounts')
    .set({ ...v, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()

/** The accounts among `ids` (id → code, name, active). */
export async function accountsByIds(db: Kysely<DB>, tenantId: number, ids: readonly number[]) {
  if (ids.length === 0) return new Map<number, AccountRow>()
  const rows = await selectAccounts(db)
    .where('a.tenant_id', '=', tenantId)
    .where('a.id', 'in', [...new Set(ids)])
    .execute()
  return new Map(rows.map((r) => [r.id, r]))
}
