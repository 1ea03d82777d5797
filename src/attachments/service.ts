/**
 * The rules of attachments once they exist (DECISIONS, "Attachments and comments"): whoever sees a document
 * sees its attachments (others 404); an order shows its request's; deleted by the uploader while the document
 * is a draft or awaiting approval, or by a superuser, the bytes with the last reference. Adding one (checks,
 * scan, storage) is add.ts.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { Config } from '../config.ts'
import { forbidden, notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { attachableOf, type AttachableDocument, type AttachableType } from './documents.ts'
import * as repo from './repository.ts'
import type { Attachment } from './schema.ts'
import { storeConfig, storeOfBlob } from './store.ts'
import { removeObjects, type Log } from './removal.ts'

export const MAX_PER_DOCUMENT = 50

export const NOUNS: Record<AttachableType, string> = {
  request: 'request',
  purchase_order: 'purchase order',
  receipt: 'receipt',
  bill: 'bill',
  expense_report: 'expense report',
  travel_request: 'travel request',
  payment_request: 'payment request',
}

/** The document as `actor` sees it; 404 when they cannot (or its type is not served here). */
export async function documentFor(db: Kysely<DB>, actor: Actor, type: AttachableType, id: number) {
  const attachable = attachableOf(type)
  const doc = attachable === undefined ? null : await attachable.load(db, actor, id)
  if (doc === null) throw notFound(`No ${NOUNS[type]} ${id}.`)
  return doc
}

export function requireAct(doc: AttachableDocument, type: AttachableType, what: string) {
  if (!doc.can_act)
    throw forbidden(
      `Adding ${what} to this ${NOUNS[type]} needs the right to act on it: its requester, the permission its ` +
        'kind of document needs at its location, or an approval candidate.',
    )
}

export const toAttachment = (row: repo.AttachmentRow): Attachment => ({
  id: row.id,
  document: { type: row.document_type, id: row.document_id },
  filename: row.filename,
  content_type: row.content_type,
  size: Number(row.size),
  sha256: row.sha256,
  scan_status: row.scan_status,
  description: row.description,
  vendor_visible: row.vendor_visible,
  uploaded_by: row.uploader ?? null,
  created_at: row.created_at.toISOString(),
})

/** A document's attachments, and those of the documents it inherits (an order's request), oldest first. */
export async function listAttachments(db: Kysely<DB>, actor: Actor, type: AttachableType, id: number) {
  const doc = await documentFor(db, actor, type, id)
  const rows = await repo.attachmentsOf(db, actor.tenantId, [{ type, id }, ...(doc.inherits ?? [])])
  return rows.map(toAttachment)
}

/**
 * The attachment if the actor sees it: through its own document (`doc` set), or read-only through an order
 * made from its request (`doc` null); 404 otherwise.
 */
async function visibleAttachment(db: Kysely<DB>, actor: Actor, id: number) {
  const row = await repo.findAttachment(db, actor.tenantId, id)
  if (row === undefined) throw notFound(`No attachment ${id}.`)
  const attachable = attachableOf(row.document_type)
  const doc = attachable === undefined ? null : await attachable.load(db, actor, row.document_id)
  if (doc !== null) return { row, doc }
  if (row.document_type === 'request') {
    const order = attachableOf('purchase_order')
    for (const o of await repo.ordersOfRequest(db, actor.tenantId, row.document_id)) {
      if (order !== undefined && (await order.load(db, actor, o.id)) !== null) return { row, doc: null }
    }
  }
  throw notFound(`No attachment ${id}.`)
}

export async function getAttachment(db: Kysely<DB>, actor: Actor, id: number) {
  return toAttachment((await visibleAttachment(db, actor, id)).row)
}

/** The bytes of an attachment the actor sees, as a stream, with what the download's headers need. */
export async function attachmentContent(db: Kysely<DB>, config: Readonly<Config>, actor: Actor, id: number) {
  const { row } = await visibleAttachment(db, actor, id)
  const open = async () => {
    const blob = await repo.findBlob(db, actor.tenantId, row.blob_id)
    if (blob === undefined) throw notFound(`No attachment ${id}.`)
    return (await storeOfBlob(config, blob)).read(db, blob)
  }
  return { attachment: toAttachment(row), open }
}

/**
 * Deletes an attachment (204): the rows in one transaction; an S3 object nothing refers to any more is removed
 * after the commit, or, when the store does not answer, recorded and removed later (removal.ts).
 */
export async function deleteAttachment(
  db: Kysely<DB>,
  config: Readonly<Config>,
  actor: Actor,
  id: number,
  log?: Log,
): Promise<void> {
  const removal = await inTransaction(db, async (tx) => {
    const { row, doc } = await visibleAttachment(tx, actor, id)
    const superuser = actor.permissions.has('superuser')
    const uploader = row.uploaded_by !== null && row.uploaded_by === actor.userId && doc?.uploader_may_delete === true
    if (!superuser && !uploader)
      throw forbidden(
        'An attachment is deleted by its uploader while its document is a draft or awaiting approval, or by a superuser.',
      )
    const attachment = toAttachment(row)
    await repo.deleteAttachment(tx, actor.tenantId, id)
    const released = await repo.releaseBlobIfUnused(tx, actor.tenantId, row.blob_id)
    await audit(tx, actor, { action: 'attachment.delete', resourceType: 'attachment', resourceId: id })
    await recordEvent(tx, actor.tenantId, 'attachment.deleted', attachment)
    return released
  })
  if (removal !== undefined) await removeObjects(db, config, removal, log)
}

/** The order's attachments marked for the vendor, as e-mail attachments (`send`). */
export async function vendorAttachments(db: Kysely<DB>, tenantId: number, orderId: number) {
  const rows = await repo.vendorVisibleOf(db, tenantId, orderId)
  if (rows.length === 0) return []
  const config = storeConfig()
  const out = []
  for (const row of rows) {
    const stream = await (await storeOfBlob(config, row)).read(db, row)
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    out.push({
      filename: row.filename,
      content_type: row.content_type,
      content: Buffer.concat(chunks).toString('base64'),
    })
  }
  return out
}
