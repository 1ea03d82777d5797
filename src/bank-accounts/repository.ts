/** SQL for vendors' and the company's bank accounts. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { byTenant, personJson, personOrNull } from '../db/joins.ts'
import { listSql } from '../db/list.ts'
import type { DB, PermissionKey } from '../db/schema.ts'
import { CompanyBankAccountListQuery } from './schema.ts'

export const findVendor = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('vendors')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()

/** Locks the vendor's row: writes and verifications of its bank account take turns. */
export const lockVendor = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('vendors')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()

function selectVendorAccounts(db: Kysely<DB>) {
  return db
    .selectFrom('vendor_bank_accounts as a')
    .innerJoin('vendors as v', byTenant('v', 'a.vendor_id'))
    .select([
      'a.tenant_id',
      'a.vendor_id',
      'v.name as vendor_name',
      'a.account_holder',
      'a.iban',
      'a.bic',
      'a.account_number',
      'a.routing_number',
      'a.country',
      'a.status',
      'a.changed_by as changed_by_id',
      personJson(sql.ref('a.changed_by'), sql.ref('a.tenant_id')).as('changed_by'),
      'a.changed_at',
      'a.verified_by as verified_by_id',
      personOrNull(sql.ref('a.verified_by'), sql.ref('a.tenant_id')).as('verified_by'),
      'a.verified_at',
    ])
}
export type VendorAccountRow = Awaited<ReturnType<ReturnType<typeof selectVendorAccounts>['executeTakeFirstOrThrow']>>

export const findVendorAccount = (db: Kysely<DB>, tenantId: number, vendorId: number) =>
  selectVendorAccounts(db).where('a.tenant_id', '=', tenantId).where('a.vendor_id', '=', vendorId).executeTakeFirst()

/** The accounts of these vendors (for a run's items and its file), by vendor id. */
export async function vendorAccounts(db: Kysely<DB>, tenantId: number, vendorIds: readonly number[]) {
  if (vendorIds.length === 0) return new Map<number, VendorAccountRow>()
  const rows = await selectVendorAccounts(db)
    .where('a.tenant_id', '=', tenantId)
    .where('a.vendor_id', 'in', [...new Set(vendorIds)])
    .execute()
  return new Map(rows.map((r) => [r.vendor_id, r]))
}

export interface VendorAccountValues {
  account_holder: string
  iban: string | null
  bic: string | null
  account_number: string | null
  routing_number: string | null
  country: string
}

/** Writes the account as changed by `userId` now: unverified, whoever verified it before forgotten. */
export async function writeVendorAccount(
  db: Kysely<DB>,
  tenantId: number,
  vendorId: number,
  values: VendorAccountValues,
  userId: number,
) {
  const changed = { ...values, status: 'unverified' as const, changed_by: userId, changed_at: new Date() }
  await db
    .insertInto('vendor_bank_accounts')
    .values({ tenant_id: tenantId, vendor_id: vendorId, ...changed, verified_by: null, verified_at: null })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'vendor_id']).doUpdateSet({ ...changed, verified_by: null, verified_at: null }),
    )
    .execute()
}

export const verifyVendorAccount = (db: Kysely<DB>, tenantId: number, vendorId: number, userId: number) =>
  db
    .updateTable('vendor_bank_accounts')
    .set({ status: 'verified', verified_by: userId, verified_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('vendor_id', '=', vendorId)
    .execute()

/**
 * The e-mail addresses of the tenant's active users who hold `key` anywhere: through their profile role or a
 * role granted tenant-wide or at any location.
 */
export async function holderEmails(db: Kysely<DB>, tenantId: number, key: PermissionKey): Promise<string[]> {
  const roleHas = (role: ReturnType<typeof sql.ref>) =>
    sql`exists (select 1 from role_permissions rp join permissions p on p.id = rp.permission_id
      where rp.tenant_id = ${tenantId} and rp.role_id = ${role} and p.key = ${key})`
  const result = await sql<{ email: string }>`
    select u.email from users u join user_profiles up on up.tenant_id = u.tenant_id and up.user_id = u.id
    where u.tenant_id = ${tenantId} and u.is_active and (
      ${roleHas(sql.ref('up.role_id'))}
      or exists (select 1 from role_grants g where g.tenant_id = u.tenant_id and g.user_id = u.id and ${roleHas(sql.ref('g.role_id'))}))
    order by u.id`.execute(db)
  return result.rows.map((r) => r.email)
}

function selectCompanyAccounts(db: Kysely<DB>) {
  return db
    .selectFrom('company_bank_accounts as a')
    .innerJoin('currencies as c', byTenant('c', 'a.currency_id'))
    .select([
      'a.id',
      'a.tenant_id',
      'a.name',
      'a.account_holder',
      'a.iban',
      'a.bic',
      'a.currency_id',
      'c.name as currency',
      'a.active',
      'a.created_at',
      'a.updated_at',
    ])
}
export type CompanyAccountRow = Awaited<ReturnType<ReturnType<typeof selectCompanyAccounts>['executeTakeFirstOrThrow']>>

export const pageOfCompanyAccounts = listSql(CompanyBankAccountListQuery, {
  select: selectCompanyAccounts,
  tenant: 'a.tenant_id',
  id: 'a.id',
  order: { name: 'a.name' },
  search: ['a.name', 'a.account_holder'],
  filters: { active: 'a.active' },
})

export const findCompanyAccount = (db: Kysely<DB>, tenantId: number, id: number) =>
  selectCompanyAccounts(db).where('a.tenant_id', '=', tenantId).where('a.id', '=', id).executeTakeFirst()

export interface CompanyAccountValues {
  name: string
  account_holder: string
  iban: string
  bic: string
  currency_id: number
  active: boolean
}

export async function insertCompanyAccount(db: Kysely<DB>, tenantId: number, values: CompanyAccountValues) {
  return (
    await db
      .insertInto('company_bank_accounts')
      .values({ tenant_id: tenantId, ...values })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
}

export async function updateCompanyAccount(db: Kysely<DB>, tenantId: number, id: number, values: CompanyAccountValues) {
  const result = await db
    .updateTable('company_bank_accounts')
    .set({ ...values, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export const currencyByName = (db: Kysely<DB>, tenantId: number, name: string) =>
  db
    .selectFrom('currencies')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst()
