/**
 * The demo's purchase orders and receipts, made through the services as a buyer would (no table writes): an
 * order in each state — a draft, one waiting for approval, one issued and sent, one partly received, one fully
 * received and closed, one cancelled — so a newcomer sees the whole request → order → receipt flow. Returns the
 * orders the demo's bills are entered against (demo-bills.ts).
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { createRule } from '../approvals/rules.service.ts'
import type { DB } from '../db/schema.ts'
import { ordersFromRequest } from '../purchase-orders/from-request.service.ts'
import { cancelOrder, closeOrder, issueOrder } from '../purchase-orders/lifecycle.service.ts'
import { sendOrder } from '../purchase-orders/send.service.ts'
import { createOrder, getOrder } from '../purchase-orders/service.ts'
import { createReceipt } from '../receipts/service.ts'
import type { DemoBillOrders } from './demo-bills.ts'

export async function seedOrders(
  tx: Kysely<DB>,
  admin: Actor,
  operator: Actor,
  p: { locations: number[]; vendors: number[]; buyerProfileId: number },
  approvedRequest: number,
): Promise<DemoBillOrders> {
  const [headOffice, east] = p.locations as [number, number]
  const v = p.vendors
  const line = (quantity: string, unit_price: string, description: string, tax_rate = '0') => ({
    description,
    quantity,
    unit_price,
    tax_rate,
  })
  // Orders at East Warehouse from 2,000 wait for its approver (the buyer).
  await createRule(tx, operator, {
    location: east,
    step: 1,
    min_total: '2000',
    approvers: [p.buyerProfileId],
    document: 'purchase_order',
  })

  // From the approved coffee machine request: ordered, issued, received and closed.
  const [service] = await ordersFromRequest(tx, admin, approvedRequest, {})
  await issueOrder(tx, admin, service!.id)
  await createReceipt(tx, admin, {
    purchase_order: service!.id,
    packing_slip: 'SVC-2231',
    lines: [{ po_line: service!.lines[0]!.id, accepted_quantity: '1' }],
  })
  const closed = await closeOrder(tx, admin, service!.id)

  await createOrder(tx, admin, {
    vendor: v[6]!,
    location: headOffice,
    notes: 'Check the colour with facilities before issuing.',
    lines: [line('4', '349.50', 'Standing desk', '8.25')],
  })

  const partly = await createOrder(tx, admin, {
    vendor: v[10]!,
    location: headOffice,
    promise_date: '2026-12-15',
    lines: [line('6', '42.99', 'Toner cartridge', '8.25'), line('10', '6.5', 'Copy paper, box', '8.25')],
  })
  await issueOrder(tx, admin, partly.id)
  await sendOrder(tx, admin, partly.id, { to: ['orders@example.com'] })
  const received = await createReceipt(tx, admin, {
    purchase_order: partly.id,
    packing_slip: 'PS-40117',
    lines: [
      { po_line: partly.lines[0]!.id, accepted_quantity: '4' },
      { po_line: partly.lines[1]!.id, accepted_quantity: '9', rejected_quantity: '1' },
    ],
  })

  const sent = await createOrder(tx, admin, {
    vendor: v[7]!,
    location: east,
    lines: [line('20', '18.75', 'Pallet wrap roll'), line('5', '12.5', 'Label rolls')],
  })
  await issueOrder(tx, admin, sent.id)
  await sendOrder(tx, admin, sent.id, { to: ['orders@example.com'], message: 'Please confirm the delivery date.' })

  const big = await createOrder(tx, admin, {
    vendor: v[3]!,
    location: east,
    lines: [line('2', '1450', 'Pallet racking bay')],
  })
  await issueOrder(tx, admin, big.id) // 2,900.00: waits for the East Warehouse approver

  const cancelled = await createOrder(tx, admin, {
    vendor: v[9]!,
    location: headOffice,
    lines: [line('1', '99', 'Duplicate order')],
  })
  await cancelOrder(tx, admin, cancelled.id)
  return { partly: await getOrder(tx, admin, received.purchase_order), service: closed }
}
