/**
 * A run's status machine (DECISIONS): draft → submit → pending_approval → approved → confirm → confirmed;
 * cancel from draft, pending_approval or approved (its documents are free again); a rejection sends it back to
 * draft. Any other transition → 409 naming the current status. Each needs accounts_payable (at every item's
 * location, for submit and confirm). Submit checks the items again (a document may have been cancelled or paid
 * by hand, a vendor's account changed) and plans the chain from the `payment_run` rules.
 *
 * `confirm` (after the bank executed the file) pays every item in one transaction: the run and then its
 * documents are locked (in id order), each item's amount is added to what is paid of its document, and a
 * document with nothing left open becomes `paid` (a bill: `paid_at` the confirmation time, `payment_reference`
 * the run's number). A bill partly paid stays approved with the rest open for a later run.
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { actorLocationAccess, holdsAnyAt } from '../access/location-permissions.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import { cancelChain, startChain } from '../approvals/service.ts'
import { audit } from '../audit/service.ts'
import { markBillsPaid } from '../bills/lifecycle.service.ts'
import { billViews } from '../bills/view.service.ts'
import { instantFault } from '../core/instant.ts'
import { compareDecimal } from '../core/decimal.ts'
import { requireStatus } from '../core/lifecycle.ts'
import { forbidden, Problem, validationFailed } from '../core/problem.ts'
import type { DB, PaymentRunStatus } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent, recordEvents } from '../events/service.ts'
import type { PaymentRequest } from '../payment-requests/schema.ts'
import { markRequestPaid } from '../payment-requests/payment.service.ts'
import { planRunChain } from './chain.service.ts'
import { checkItems, itemName, lockDocuments, openOf } from './items.service.ts'
import * as repo from './repository.ts'
import type { ConfirmInput, PaymentRun } from './schema.ts'
import { requireMaker } from './service.ts'
import { runView, visibleRun } from './view.service.ts'

const requireRunStatus = (row: repo.RunRow, allowed: readonly PaymentRunStatus[], action: string) =>
  requireStatus({ subject: `Payment run ${row.number}`, noun: 'payment run' }, row.status, allowed, action)

/** The run's items as they are written. */
const asInput = (run: PaymentRun) =>
  run.items.map((i) => ({
    document: { type: i.document.type, id: i.document.id },
    amount: i.amount,
    reference: i.reference,
  }))

export async function submitRun(db: Kysely<DB>, actor: Actor, id: number, base?: MailBase): Promise<PaymentRun> {
  const userId = actingUser(actor)
  await requireMaker(db, actor)
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleRun(tx, actor, id, true)
    requireRunStatus(row, ['draft'], 'submitted')
    const current = await runView(tx, actor.tenantId, id)
    const checked = await checkItems(tx, actor.tenantId, access, asInput(current), {
      currencyId: row.currency_id,
      currency: row.currency,
      except: id,
    })
    const chain = await planRunChain(tx, actor.tenantId, {
      total: checked.total,
      currencyId: row.currency_id,
      locations: checked.locations,
      submitterId: userId,
    })
    await repo.updateRun(tx, actor.tenantId, id, {
      status: chain.length === 0 ? 'approved' : 'pending_approval',
      submitted_at: new Date(),
    })
    await audit(tx, actor, { action: 'payment_run.submit', resourceType: 'payment_run', resourceId: id })
    let first: number | undefined
    if (chain.length > 0) {
      // The engine records one location per approval; a run's deciders were checked at every item's location.
      const doc = { type: 'payment_run' as const, id, locationId: checked.locations[0]!, submitterId: userId }
      first = await startChain(tx, actor, doc, chain, base)
    }
    const run = await runView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'payment_run.submitted', run)
    if (first !== undefined)
      await recordEvent(
        tx,
        actor.tenantId,
        'approval.created',
        run.approvals.find((a) => a.id === first)!,
      )
    else await recordEvent(tx, actor.tenantId, 'payment_run.approved', run)
    return run
  })
}

export async function cancelRun(db: Kysely<DB>, actor: Actor, id: number): Promise<PaymentRun> {
  await requireMaker(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleRun(tx, actor, id, true)
    requireRunStatus(row, ['draft', 'pending_approval', 'approved'], 'cancelled')
    await cancelChain(tx, actor, 'payment_run', id)
    await repo.updateRun(tx, actor.tenantId, id, { status: 'cancelled' })
    await audit(tx, actor, { action: 'payment_run.cancel', resourceType: 'payment_run', resourceId: id })
    const run = await runView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'payment_run.cancelled', run)
    return run
  })
}

export async function confirmRun(db: Kysely<DB>, actor: Actor, id: number, input: ConfirmInput): Promise<PaymentRun> {
  await requireMaker(db, actor)
  const fault = input.confirmed_at === undefined ? undefined : instantFault(input.confirmed_at)
  if (fault !== undefined) throw validationFailed({ confirmed_at: [fault] })
  const confirmedAt = input.confirmed_at ?? new Date().toISOString()
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleRun(tx, actor, id, true)
    requireRunStatus(row, ['approved'], 'confirmed')
    const run = await runView(tx, actor.tenantId, id)
    const notHeld = run.items.filter((i) => !holdsAnyAt(access, i.location.id, 'accounts_payable'))
    if (notHeld.length > 0)
      throw forbidden(
        `Confirming payment run ${row.number} needs accounts_payable at every item's location: ${notHeld
          .map((i) => `${itemName(run.items.indexOf(i), i.document.type, i.document.number)} is at ${i.location.name}`)
          .join('; ')}.`,
      )
    const doc = await lockDocuments(tx, actor.tenantId, run.items)
    const stale = run.items.flatMap((item, index) => {
      const d = doc(item.document.type, item.document.id)!
      const name = itemName(index, item.document.type, item.document.number)
      if (d.status !== 'approved') return [`${name} is ${d.status} now`]
      if (compareDecimal(item.amount, openOf(d)) > 0) return [`${name}: only ${openOf(d)} ${d.currency} is still open`]
      return []
    })
    if (stale.length > 0)
      throw new Problem(
        409,
        'Conflict',
        `Payment run ${row.number} cannot be confirmed: ${stale.join('; ')}. Nothing was marked paid; check those ` +
          'documents with the bank statement and cancel the run if it was not executed.',
      )
    const bills = run.items.filter((i) => i.document.type === 'bill')
    const settled = await repo.addBillsPaid(
      tx,
      actor.tenantId,
      bills.map((i) => ({ id: i.document.id, amount: i.amount })),
    )
    await markBillsPaid(tx, actor.tenantId, settled, confirmedAt, row.number)
    const requests: PaymentRequest[] = []
    for (const item of run.items.filter((i) => i.document.type === 'payment_request')) {
      const paid = await markRequestPaid(tx, actor.tenantId, item.document.id, item.amount, confirmedAt, row.number)
      if (paid !== undefined) requests.push(paid)
    }
    await repo.updateRun(tx, actor.tenantId, id, { status: 'confirmed', confirmed_at: confirmedAt })
    await audit(tx, actor, {
      action: 'payment_run.confirm',
      resourceType: 'payment_run',
      resourceId: id,
      changes: { confirmed_at: confirmedAt },
    })
    const confirmed = await runView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'payment_run.confirmed', confirmed)
    await recordEvents(tx, actor.tenantId, 'bill.paid', await billViews(tx, actor.tenantId, settled))
    await recordEvents(tx, actor.tenantId, 'payment_request.paid', requests)
    return confirmed
  })
}
