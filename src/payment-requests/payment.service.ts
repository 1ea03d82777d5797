/**
 * What a confirmed payment run does to a payment request (payment-runs/lifecycle.service.ts): adds what it paid;
 * when nothing is left open the request is `paid` (`paid_at`, `payment_reference` the run's number). The caller
 * has locked the request and records the event.
 */
import type { Kysely } from 'kysely'
import { compareDecimal } from '../core/decimal.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import type { PaymentRequest } from './schema.ts'
import { paymentRequestView } from './view.service.ts'

/** The request as GET returns it when it is paid off now; undefined while some of it is still open. */
export async function markRequestPaid(
  tx: Kysely<DB>,
  tenantId: number,
  id: number,
  amount: string,
  paidAt: string,
  reference: string,
): Promise<PaymentRequest | undefined> {
  const row = await repo.addPaid(tx, tenantId, id, amount)
  if (compareDecimal(row.amount_paid, row.amount) < 0) return undefined
  await repo.updatePaymentRequest(tx, tenantId, id, { status: 'paid', paid_at: paidAt, payment_reference: reference })
  return paymentRequestView(tx, tenantId, id)
}
