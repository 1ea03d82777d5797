/**
 * Payment runs (DECISIONS, "Payment requests and payment runs"): list, read, make and edit while `draft`. A run
 * pays approved, unpaid bills and approved payment requests from one company account, in its currency. Made by
 * accounts_payable, held at every item's location (items.service.ts checks each item).
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { actorLocationAccess } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import { holdsPayables } from '../bank-accounts/vendor.service.ts'
import { instantFault } from '../core/instant.ts'
import { requireStatus } from '../core/lifecycle.ts'
import type { Page } from '../core/list-query.ts'
import { forbidden, validationFailed } from '../core/problem.ts'
import { nextNumber } from '../db/numbering.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { checkItems } from './items.service.ts'
import * as repo from './repository.ts'
import type { PaymentRun, PaymentRunInput, PaymentRunListQuery } from './schema.ts'
import { runScope, runView, toRuns, visibleRun } from './view.service.ts'

export async function listRuns(db: Kysely<DB>, actor: Actor, query: PaymentRunListQuery): Promise<Page<PaymentRun>> {
  const scope = await runScope(db, actor)
  const page = await repo.pageOfRuns(db, actor.tenantId, query, scope === undefined ? undefined : [scope])
  return { ...page, rows: await toRuns(db, actor.tenantId, page.rows) }
}

export async function getRun(db: Kysely<DB>, actor: Actor, id: number): Promise<PaymentRun> {
  return (await toRuns(db, actor.tenantId, [await visibleRun(db, actor, id)]))[0]!
}

/**
 * The runs (any status, newest first) with an item paying payment request `paymentRequestId`, as far as the actor
 * sees runs: every one for accounts payable, else only those whose approvals name them.
 */
export async function runsPayingRequest(db: Kysely<DB>, actor: Actor, paymentRequestId: number): Promise<PaymentRun[]> {
  const scope = await runScope(db, actor)
  const rows = []
  for (const id of await repo.runIdsPayingRequest(db, actor.tenantId, paymentRequestId)) {
    const row = await repo.findRun(db, actor.tenantId, id, scope)
    if (row !== undefined) rows.push(row)
  }
  return toRuns(db, actor.tenantId, rows)
}

export async function requireMaker(db: Kysely<DB>, actor: Actor) {
  if (!(await holdsPayables(db, actor)))
    throw forbidden('Payment runs are made, submitted, cancelled and confirmed by holders of accounts_payable.')
}

/** The run's bank account and execution date, checked: 400 naming the field. */
async function headerOf(tx: Kysely<DB>, tenantId: number, input: PaymentRunInput) {
  const accountId = typeof input.bank_account === 'number' ? input.bank_account : input.bank_account.id
  const account = await repo.companyAccount(tx, tenantId, accountId)
  const errors: Record<string, string[]> = {}
  if (account === undefined) errors.bank_account = [`no bank account ${accountId} (GET /api/v3/bank-accounts/)`]
  else if (!account.active) errors.bank_account = [`bank account ${account.name} is inactive; choose an active one`]
  if (instantFault(`${input.execution_date}T12:00:00Z`) !== undefined)
    errors.execution_date = ['must be a date within the years 0001 to 9999']
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return account!
}

export async function createRun(db: Kysely<DB>, actor: Actor, input: PaymentRunInput): Promise<PaymentRun> {
  const userId = actingUser(actor)
  await requireMaker(db, actor)
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const account = await headerOf(tx, actor.tenantId, input)
    const checked = await checkItems(tx, actor.tenantId, access, input.items, {
      currencyId: account.currency_id,
      currency: account.currency,
      except: 0,
    })
    const number = await nextNumber(tx, actor.tenantId, 'payment_run')
    const id = await repo.insertRun(
      tx,
      actor.tenantId,
      number,
      {
        bank_account_id: account.id,
        currency_id: account.currency_id,
        execution_date: input.execution_date,
        total: checked.total,
      },
      userId,
    )
    await repo.replaceItems(tx, actor.tenantId, id, checked.items)
    await audit(tx, actor, {
      action: 'payment_run.create',
      resourceType: 'payment_run',
      resourceId: id,
      changes: input,
    })
    const run = await runView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'payment_run.created', run)
    return run
  })
}

export async function putRun(db: Kysely<DB>, actor: Actor, id: number, input: PaymentRunInput): Promise<PaymentRun> {
  await requireMaker(db, actor)
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleRun(tx, actor, id, true)
    requireStatus({ subject: `Payment run ${row.number}`, noun: 'payment run' }, row.status, ['draft'], 'edited')
    const account = await headerOf(tx, actor.tenantId, input)
    const checked = await checkItems(tx, actor.tenantId, access, input.items, {
      currencyId: account.currency_id,
      currency: account.currency,
      except: id,
    })
    await repo.updateRun(tx, actor.tenantId, id, {
      bank_account_id: account.id,
      currency_id: account.currency_id,
      execution_date: input.execution_date,
      total: checked.total,
    })
    await repo.replaceItems(tx, actor.tenantId, id, checked.items)
    await audit(tx, actor, {
      action: 'payment_run.update',
      resourceType: 'payment_run',
      resourceId: id,
      changes: input,
    })
    return runView(tx, actor.tenantId, id)
  })
}
