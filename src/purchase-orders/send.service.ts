/**
 * The order's PDF, and `send`: the PDF e-mailed through the mail outbox (SMTP when set) to `to`, by default
 * the vendor's e-mail addresses, and `sent_at` set — only for `issued` orders, with `nav_purchase` at the
 * order's location. The e-mail is queued in the same transaction as `sent_at` and `purchase_order.sent`.
 */
import { requireStatus } from '../core/lifecycle.ts'
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { actorLocationAccess, requireAnyAt } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import { validationFailed } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { queueMail } from '../mail/service.ts'
import { vendorAttachments } from '../attachments/service.ts'
import { orderScope, scopeOf, visibleOrder } from './access.service.ts'
import * as orderWrites from './write-repository.ts'
import * as references from './references-repository.ts'
import type { PurchaseOrder } from './schema.ts'
import { orderView, toOrders } from './view.service.ts'

/**
 * The order as a PDF, with the buyer and the vendor it names; the PDF library (a megabyte of code) is loaded
 * on the first one, not with the server.
 */
async function renderOrderPdf(db: Kysely<DB>, tenantId: number, order: PurchaseOrder): Promise<Uint8Array> {
  const parties = await references.orderParties(db, tenantId, order.location.id, order.vendor.id)
  return (await import('./pdf.ts')).renderOrderPdf(order, parties)
}

export async function orderPdf(db: Kysely<DB>, actor: Actor, id: number) {
  const row = await visibleOrder(db, actor, await orderScope(db, actor), id)
  const order = (await toOrders(db, actor.tenantId, [row]))[0]!
  return { number: order.number, pdf: Buffer.from(await renderOrderPdf(db, actor.tenantId, order)) }
}

export async function sendOrder(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: { to?: string[] | undefined; message?: string | undefined },
): Promise<PurchaseOrder> {
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleOrder(tx, actor, scopeOf(actor, access), id, true)
    requireAnyAt(access, row.location_id, 'nav_purchase')
    requireStatus({ subject: 'The purchase order', noun: 'order' }, row.status, ['issued'], 'sent')
    const to = input.to ?? (await references.vendorEmails(tx, actor.tenantId, row.vendor_id))
    if (to.length === 0)
      throw validationFailed({ to: [`vendor ${row.vendor_id} has no e-mail address: name the recipients in to`] })
    const order = await orderView(tx, actor.tenantId, id)
    const pdf = await renderOrderPdf(tx, actor.tenantId, order)
    const text =
      `${input.message ?? ''}\n\nPurchase order ${order.number} (version ${order.version}), ` +
      `total ${order.total} ${order.currency}, is attached.`.trim()
    await queueMail(tx, actor.tenantId, to, {
      subject: `Purchase order ${order.number}`,
      text: text.trim(),
      attachments: [
        {
          filename: `${order.number}.pdf`,
          content_type: 'application/pdf',
          content: Buffer.from(pdf).toString('base64'),
        },
        // The order's attachments marked vendor_visible (DECISIONS, "Attachments and comments").
        ...(await vendorAttachments(tx, actor.tenantId, id)),
      ],
    })
    await orderWrites.updateOrder(tx, actor.tenantId, id, { sent_at: new Date() })
    await audit(tx, actor, {
      action: 'purchase_order.send',
      resourceType: 'purchase_order',
      resourceId: id,
      changes: { to },
    })
    const sent = await orderView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'purchase_order.sent', sent)
    return sent
  })
}
