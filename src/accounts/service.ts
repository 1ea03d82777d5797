/**
 * Accounts (DECISIONS, "Accounts, budgets and the commitment ledger"): general-ledger codes, 1–32 characters,
 * unique in the tenant ignoring case; written by `superuser` or `nav_setting` (audited, `account.*` events),
 * read by every active user. Lines of requests, orders and bills name one (`checkLineAccounts`): an id or null
 * on write, `{id, code, name}` or null on read; an inactive or unknown one on a new or changed line → 400
 * naming the line.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { Page } from '../core/list-query.ts'
import { conflict, notFound, validationFailed } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import * as repo from './repository.ts'
import type { Account, AccountInput, AccountListQuery, AccountRef } from './schema.ts'

const WRITERS = ['superuser', 'nav_setting'] as const

const toAccount = (row: repo.AccountRow): Account => ({
  id: row.id,
  code: row.code,
  name: row.name,
  active: row.active,
})

export async function listAccounts(db: Kysely<DB>, actor: Actor, query: AccountListQuery): Promise<Page<Account>> {
  const page = await repo.pageOfAccounts(db, actor.tenantId, query)
  return { ...page, rows: page.rows.map(toAccount) }
}

export async function getAccount(db: Kysely<DB>, actor: Actor, id: number): Promise<Account> {
  const row = await repo.findAccount(db, actor.tenantId, id)
  if (row === undefined) throw notFound(`No account ${id}.`)
  return toAccount(row)
}

function valuesOf(input: AccountInput): repo.AccountValues {
  const code = input.code.trim()
  if (code === '') throw validationFailed({ code: ['must not be blank'] })
  return { code, name: (input.name ?? '').trim(), active: input.active ?? true }
}

const UNIQUE_VIOLATION = '23505'
const taken = (code: string) =>
  conflict(
    `An account with the code ${JSON.stringify(code)} already exists (codes are compared ignoring case); choose another code.`,
  )

async function guardUnique<T>(code: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw taken(code)
    throw error
  }
}

export async function createAccount(db: Kysely<DB>, actor: Actor, input: AccountInput): Promise<Account> {
  requireAny(actor, ...WRITERS)
  const values = valuesOf(input)
  return guardUnique(values.code, () =>
    inTransaction(db, async (tx) => {
      if ((await repo.findByCode(tx, actor.tenantId, values.code)) !== undefined) throw taken(values.code)
      const id = await repo.insertAccount(tx, actor.tenantId, values)
      await audit(tx, actor, { action: 'account.create', resourceType: 'account', resourceId: id, changes: input })
      const account = toAccount((await repo.findAccount(tx, actor.tenantId, id))!)
      await recordEvent(tx, actor.tenantId, 'account.created', account)
      return account
    }),
  )
}

export async function replaceAccount(db: Kysely<DB>, actor: Actor, id: number, input: AccountInput): Promise<Account> {
  requireAny(actor, ...WRITERS)
  const values = valuesOf(input)
  return guardUnique(values.code, () =>
    inTransaction(db, async (tx) => {
      if ((await repo.findAccount(tx, actor.tenantId, id, true)) === undefined) throw notFound(`No account ${id}.`)
      if ((await repo.findByCode(tx, actor.tenantId, values.code, id)) !== undefined) throw taken(values.code)
      await repo.updateAccount(tx, actor.tenantId, id, values)
      await audit(tx, actor, { action: 'account.update', resourceType: 'account', resourceId: id, changes: input })
      const account = toAccount((await repo.findAccount(tx, actor.tenantId, id))!)
      await recordEvent(tx, actor.tenantId, 'account.updated', account)
      return account
    }),
  )
}

/** The id a line's `account` names (an id, `{id}`, or null/absent). */
export const accountIdOf = (value: unknown): number | null | undefined =>
  value === undefined
    ? undefined
    : value === null
      ? null
      : typeof value === 'number'
        ? value
        : typeof value === 'object' && typeof (value as { id?: unknown }).id === 'number'
          ? (value as { id: number }).id
          : Number.NaN

/**
 * The field errors of lines' accounts (`lines.<i>.account`): one that does not exist, or is inactive on a line
 * that is new or whose account changed (`kept(i, id)` says a line keeps the account it had). Empty when all
 * are fine.
 */
export async function lineAccountErrors(
  db: Kysely<DB>,
  tenantId: number,
  accounts: readonly (number | null | undefined)[],
  kept: (index: number, id: number) => boolean = () => false,
): Promise<Record<string, string[]>> {
  const ids = accounts.filter((a): a is number => typeof a === 'number' && Number.isInteger(a) && a > 0 && a < 2 ** 31)
  const found = await repo.accountsByIds(db, tenantId, ids)
  const errors: Record<string, string[]> = {}
  accounts.forEach((a, i) => {
    if (a === null || a === undefined) return
    const row = Number.isInteger(a) && a > 0 ? found.get(a) : undefined
    if (row === undefined)
      errors[`lines.${i}.account`] = [
        `line ${i + 1}: there is no account ${String(a)}; name an existing account or null`,
      ]
    else if (!row.active && !kept(i, a))
      errors[`lines.${i}.account`] = [
        `line ${i + 1}: account ${row.code} is inactive; choose an active account (or null) for this line`,
      ]
  })
  return errors
}

/** `{id, code, name}` of each account id (for lines' read shape). */
export async function accountRefs(
  db: Kysely<DB>,
  tenantId: number,
  ids: readonly (number | null)[],
): Promise<Map<number, NonNullable<AccountRef>>> {
  const found = await repo.accountsByIds(
    db,
    tenantId,
    ids.filter((i): i is number => i !== null),
  )
  return new Map([...found].map(([id, r]) => [id, { id, code: r.code, name: r.name }]))
}
