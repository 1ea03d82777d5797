/**
 * The demo's bills, made through the services as accounts payable would (no table writes), after the orders:
 * on the partly received toner and paper order, a matched bill for the toner received (approved at once: no
 * bill rule) and one for all ten boxes of paper when nine were accepted — an exception that waits in the
 * administrator's approvals; on the closed coffee-machine service order, a bill approved and paid. The
 * exception bill is entered by Rita, who holds an "Accounts Payable" role at the Head Office (demo.ts), so that the
 * administrator (a superuser, who holds every permission) is the one to resolve it.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { payBill, submitBill } from '../bills/lifecycle.service.ts'
import { createBill } from '../bills/service.ts'
import type { DB } from '../db/schema.ts'
import type { PurchaseOrder } from '../purchase-orders/schema.ts'

export interface DemoBillOrders {
  /** The partly received Head Office order: toner (4 of 6 received), paper (9 of 10 accepted). */
  partly: PurchaseOrder
  /** The received and closed service order from the approved request. */
  service: PurchaseOrder
}

export async function seedBills(
  tx: Kysely<DB>,
  people: { admin: Actor; payables: Actor },
  orders: DemoBillOrders,
): Promise<void> {
  const { admin, payables } = people
  const [toner, paper] = orders.partly.lines as [PurchaseOrder['lines'][number], PurchaseOrder['lines'][number]]

  const matched = await createBill(tx, admin, {
    number: 'INV-77120',
    purchase_order: orders.partly.id,
    invoice_date: '2026-11-18',
    due_date: '2026-12-18',
    lines: [{ po_line: toner.id, quantity: '4' }],
  })
  await submitBill(tx, admin, matched.id)

  const over = await createBill(tx, payables, {
    number: 'INV-77121',
    purchase_order: orders.partly.id,
    invoice_date: '2026-11-19',
    due_date: '2026-12-19',
    lines: [{ po_line: paper.id, quantity: '10' }],
  })
  await submitBill(tx, payables, over.id) // billed 10, received 9: waits for the administrator

  const service = orders.service
  const paid = await createBill(tx, admin, {
    number: 'SVC-INV-5518',
    purchase_order: service.id,
    invoice_date: '2026-11-10',
    due_date: '2026-11-24',
    lines: service.lines.map((l) => ({ po_line: l.id, quantity: l.received_quantity })),
  })
  await submitBill(tx, admin, paid.id)
  // Paid as the demo is made: a fixed date would come before the approval just given, and the cycle-time
  // report would draw a negative "approval → paid".
  await payBill(tx, admin, paid.id, { payment_reference: 'ACH-20431' })
}
