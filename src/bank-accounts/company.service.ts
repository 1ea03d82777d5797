/**
 * The company's bank accounts (DECISIONS): the accounts payment runs pay from, each in one currency. Managed by
 * superuser or nav_setting; read by them and by accounts-payable holders, who pick one for a run.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { Page } from '../core/list-query.ts'
import { forbidden, notFound, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import * as repo from './repository.ts'
import type { CompanyBankAccount, CompanyBankAccountInput, CompanyBankAccountListQuery } from './schema.ts'
import { checkBic, checkIban } from './validation.ts'
import { holdsPayables } from './vendor.service.ts'

const MANAGERS = ['superuser', 'nav_setting'] as const

async function requireReader(db: Kysely<DB>, actor: Actor) {
  if (MANAGERS.some((k) => actor.permissions.has(k)) || (await holdsPayables(db, actor))) return
  throw forbidden('Reading the company’s bank accounts needs superuser, nav_setting or accounts_payable.')
}

export const toCompanyAccount = (row: repo.CompanyAccountRow): CompanyBankAccount => ({
  id: row.id,
  name: row.name,
  account_holder: row.account_holder,
  iban: row.iban,
  bic: row.bic,
  currency: row.currency,
  active: row.active,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
})

export async function listCompanyAccounts(
  db: Kysely<DB>,
  actor: Actor,
  query: CompanyBankAccountListQuery,
): Promise<Page<CompanyBankAccount>> {
  await requireReader(db, actor)
  const page = await repo.pageOfCompanyAccounts(db, actor.tenantId, query)
  return { ...page, rows: page.rows.map(toCompanyAccount) }
}

export async function getCompanyAccount(db: Kysely<DB>, actor: Actor, id: number): Promise<CompanyBankAccount> {
  await requireReader(db, actor)
  const row = await repo.findCompanyAccount(db, actor.tenantId, id)
  if (row === undefined) throw notFound(`No bank account ${id}.`)
  return toCompanyAccount(row)
}

async function valuesOf(db: Kysely<DB>, tenantId: number, input: CompanyBankAccountInput) {
  const errors: FieldErrors = {}
  const iban = checkIban(input.iban)
  if ('error' in iban) errors.iban = [iban.error]
  const bic = checkBic(input.bic)
  if ('error' in bic) errors.bic = [bic.error]
  const name = typeof input.currency === 'string' ? input.currency : input.currency.name
  const currency = await repo.currencyByName(db, tenantId, name)
  if (currency === undefined)
    errors.currency = [
      `must be one of the tenant’s currencies (GET /api/v2/currencies/); ${JSON.stringify(name)} is not`,
    ]
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return {
    name: input.name.trim(),
    account_holder: input.account_holder.trim(),
    iban: (iban as { value: string }).value,
    bic: (bic as { value: string }).value,
    currency_id: currency!.id,
    active: input.active ?? true,
  }
}

export async function createCompanyAccount(db: Kysely<DB>, actor: Actor, input: CompanyBankAccountInput) {
  requireAny(actor, ...MANAGERS)
  return inTransaction(db, async (tx) => {
    const id = await repo.insertCompanyAccount(tx, actor.tenantId, await valuesOf(tx, actor.tenantId, input))
    await audit(tx, actor, {
      action: 'bank_account.create',
      resourceType: 'bank_account',
      resourceId: id,
      changes: input,
    })
    return toCompanyAccount((await repo.findCompanyAccount(tx, actor.tenantId, id))!)
  })
}

export async function putCompanyAccount(db: Kysely<DB>, actor: Actor, id: number, input: CompanyBankAccountInput) {
  requireAny(actor, ...MANAGERS)
  return inTransaction(db, async (tx) => {
    if ((await repo.findCompanyAccount(tx, actor.tenantId, id)) === undefined) throw notFound(`No bank account ${id}.`)
    await repo.updateCompanyAccount(tx, actor.tenantId, id, await valuesOf(tx, actor.tenantId, input))
    await audit(tx, actor, {
      action: 'bank_account.replace',
      resourceType: 'bank_account',
      resourceId: id,
      changes: input,
    })
    return toCompanyAccount((await repo.findCompanyAccount(tx, actor.tenantId, id))!)
  })
}
