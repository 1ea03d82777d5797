/**
 * What the History and What-it-led-to boxes of the document pages show (views/history.ts draws them): read
 * through the services, so a box lists only what the signed-in user may see. Each page calls one of these
 * once; a document type added later adds one loader here.
 */
import type { Actor } from '../../access/actor.ts'
import { documentHistory } from '../../audit/service.ts'
import { addDecimal } from '../../core/decimal.ts'
import type { Page } from '../../core/list-query.ts'
import { Problem } from '../../core/problem.ts'
import { listBills } from '../../bills/service.ts'
import type { Bill } from '../../bills/schema.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import { listOrders } from '../../purchase-orders/service.ts'
import { listReceipts } from '../../receipts/service.ts'
import type { ConsoleDeps } from '../context.ts'
import { billStatusName } from '../views/bill-lines.ts'
import { historyBox, ledToBox, spendLine, type LedToRow } from '../views/history.ts'
import type { Html } from '../views/html.ts'
import { statusName } from '../views/orders.ts'

/** The audit types of the documents with a page. */
export type HistoryType = 'request' | 'purchase_order' | 'receipt' | 'bill' | 'vendor' | (string & {})

/** The History box of document `type` `id` (the caller has read the document, so the actor may see it). */
export const historySection = async (deps: ConsoleDeps, actor: Actor, type: HistoryType, id: number): Promise<Html> =>
  historyBox(await documentHistory(deps.db, actor, type, id))

/** Every row of a list the actor may see (up to 500), or none where they may not list it at all (403). */
async function visible<T>(read: (page: number) => Promise<Page<T>>): Promise<T[]> {
  const rows: T[] = []
  try {
    for (let page = 1; rows.length < 500; page++) {
      const result = await read(page)
      rows.push(...result.rows)
      if (rows.length >= result.count || result.rows.length === 0) break
    }
  } catch (error) {
    if (error instanceof Problem && error.status === 403) return []
    throw error
  }
  return rows
}

const orderRow = (o: PurchaseOrder): LedToRow => ({
  kind: 'Purchase order',
  href: `/console/orders/${o.id}`,
  label: o.number,
  status: statusName(o.status),
  amount: o.total,
  currency: o.currency,
  date: o.created_at,
})
const billRow = (b: Bill): LedToRow => ({
  kind: 'Bill',
  href: `/console/bills/${b.id}`,
  label: b.number,
  status: billStatusName(b.status),
  amount: b.total,
  currency: b.currency,
  date: b.created_at,
})

const ordersOf = (deps: ConsoleDeps, actor: Actor, filter: { request?: number; vendor?: number }) =>
  visible((page) => listOrders(deps.db, actor, { ...filter, page, page_size: 100, order_by: 'id' }))
const billsOf = (deps: ConsoleDeps, actor: Actor, filter: { purchase_order?: number; vendor?: number }) =>
  visible((page) => listBills(deps.db, actor, { ...filter, page, page_size: 100, order_by: 'id' }))

/** A request's box: every order made from it. */
export async function requestLedTo(deps: ConsoleDeps, actor: Actor, requestId: number): Promise<Html> {
  const orders = await ordersOf(deps, actor, { request: requestId })
  return ledToBox(orders.map(orderRow), 'No orders yet: orders made from this request will be listed here.')
}

/** The orders made from a request (the request page hides "Make purchase orders" once there are any). */
export const ordersFromRequestOf = (deps: ConsoleDeps, actor: Actor, requestId: number) =>
  ordersOf(deps, actor, { request: requestId })

/** An order's box: its receipts and returns, then its bills. */
export async function orderLedTo(deps: ConsoleDeps, actor: Actor, orderId: number): Promise<Html> {
  const [receipts, bills] = await Promise.all([
    visible((page) => listReceipts(deps.db, actor, { purchase_order: orderId, page, page_size: 100, order_by: 'id' })),
    billsOf(deps, actor, { purchase_order: orderId }),
  ])
  const rows: LedToRow[] = [
    ...receipts.map((r) => ({
      kind: r.type === 'return' ? 'Return' : 'Receipt',
      href: `/console/receipts/${r.id}`,
      label: r.number,
      status: r.status === 'voided' ? 'Voided' : 'Posted',
      amount: null,
      currency: null,
      date: r.received_at,
    })),
    ...bills.map(billRow),
  ]
  return ledToBox(rows, 'Nothing yet: receipts and bills of this order will be listed here.')
}

/** What a bill counts in a vendor's spend: submitted, approved or paid (not drafts, not cancelled ones). */
const SPENT = new Set(['pending_approval', 'approved', 'paid'])

/** A vendor's box: its orders and bills, and its spend this year (bills dated this year, per currency). */
export async function vendorLedTo(deps: ConsoleDeps, actor: Actor, vendorId: number, now = new Date()): Promise<Html> {
  const [orders, bills] = await Promise.all([
    ordersOf(deps, actor, { vendor: vendorId }),
    billsOf(deps, actor, { vendor: vendorId }),
  ])
  const year = now.getUTCFullYear()
  const totals = new Map<string, string>()
  for (const b of bills) {
    const dated = b.invoice_date ?? b.created_at
    if (!SPENT.has(b.status) || !dated.startsWith(String(year))) continue
    totals.set(b.currency, addDecimal(totals.get(b.currency) ?? '0', b.total))
  }
  return ledToBox(
    [...orders.map(orderRow), ...bills.map(billRow)],
    'No orders or bills with this vendor yet.',
    spendLine(year, totals),
  )
}
