/**
 * The rules of attachments (DECISIONS, "Attachments and comments"): whoever sees a document sees its
 * attachments (others 404); adding needs the right to act on it (403); the type comes from the bytes and
 * must be on the allow-list (415 naming what was found); at most 50 per document (409); scanned before
 * stored when clamd is configured (422 naming the signature, 503 when it cannot answer); stored once per
 * tenant and content; deleted by the uploader while the document is a draft or awaiting approval, or by a
 * superuser, the bytes with the last reference.
 */
import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { Config } from '../config.ts'
import { conflict, forbidden, notFound, Problem, validationFailed } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { scanFile, type ClamdAddress } from './clamav.ts'
import { ALLOWED_TYPES, cleanFilename, describeType, detectType } from './detect.ts'
import { attachableOf, type AttachableDocument, type AttachableType } from './documents.ts'
import * as repo from './repository.ts'
import type { Attachment } from './schema.ts'
import { storeConfig, storeFor, storeOfBlob, writeParts } from './store.ts'
import { discardUploaded, removeObjects, type Log } from './removal.ts'
import { receiveUpload, type Upload } from './upload.ts'

export const MAX_PER_DOCUMENT = 50

const NOUNS: Record<AttachableType, string> = {
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

const clamd = (config: Readonly<Config>): ClamdAddress | undefined =>
  config.CLAMAV_SOCKET !== undefined
    ? { socket: config.CLAMAV_SOCKET }
    : config.CLAMAV_HOST !== undefined
      ? { host: config.CLAMAV_HOST, port: config.CLAMAV_PORT }
      : undefined

const refused = (type: string) =>
  new Problem(
    415,
    'Unsupported Media Type',
    `The file is ${describeType(type)}, which is not accepted; attach a PDF, an image (PNG, JPEG, GIF, WebP, ` +
      'TIFF, HEIC), plain text or CSV, a DOCX, XLSX, ODT or ODS document, or an e-mail (EML).',
    { kind: 'unsupported-media-type' },
  )

/**
 * Checks that the actor may add attachments to document (`type`, `id`), then receives the upload (spooled,
 * hashed, counted). The caller stores it (`storeAttachment`) and discards the spool in `finally`.
 */
export async function receiveAttachment(
  db: Kysely<DB>,
  config: Readonly<Config>,
  actor: Actor,
  type: AttachableType,
  id: number,
  request: FastifyRequest,
): Promise<Upload> {
  requireAct(await documentFor(db, actor, type, id), type, 'attachments')
  return receiveUpload(request, config.ATTACHMENT_MAX_BYTES)
}

/**
 * What makes two uploads the same request for `Idempotency-Key`: the file's SHA-256, size and name and the
 * other fields — computed from the spooled file, so the body is never held whole to compare it.
 */
export const fingerprintOf = (upload: Upload): string =>
  JSON.stringify({
    file: { sha256: upload.sha256, size: upload.sniffed.size, filename: upload.filename },
    description: upload.description ?? null,
    vendor_visible: upload.vendorVisible ?? null,
  })

/** Checks, scans and stores a received upload to document (`type`, `id`); the attachment. */
export async function storeAttachment(
  db: Kysely<DB>,
  config: Readonly<Config>,
  actor: Actor,
  type: AttachableType,
  id: number,
  upload: Upload,
): Promise<Attachment> {
  let uploadedKey: string | undefined
  const store = await storeFor(config)
  try {
    if (upload.vendorVisible !== undefined && type !== 'purchase_order')
      throw validationFailed(
        { vendor_visible: ['is for purchase orders only'] },
        'vendor_visible applies to purchase orders only; leave it out.',
      )
    const contentType = await detectType(upload.file, upload.sniffed)
    if (!ALLOWED_TYPES.has(contentType)) throw refused(contentType)
    const scanned = await scan(config, upload.file)
    if (store.put !== undefined && !(await repo.blobExists(db, actor.tenantId, upload.sha256)))
      uploadedKey = await store.put(actor.tenantId, upload.sha256, upload.file)
    const filename = cleanFilename(upload.filename)
    const result = await inTransaction(db, async (tx) => {
      await repo.lockDocument(tx, actor.tenantId, type, id)
      const doc = await documentFor(tx, actor, type, id)
      requireAct(doc, type, 'attachments')
      if ((await repo.countOf(tx, actor.tenantId, type, id)) >= MAX_PER_DOCUMENT)
        throw conflict(
          `This ${NOUNS[type]} has ${MAX_PER_DOCUMENT} attachments, the most it may have; delete one before adding another.`,
        )
      const blob = await repo.upsertBlob(tx, {
        tenant_id: actor.tenantId,
        sha256: upload.sha256,
        size: upload.sniffed.size,
        store: uploadedKey === undefined && store.kind === 's3' ? 's3' : store.kind,
        s3_key: uploadedKey ?? null,
      })
      if (blob.inserted && blob.store === 'database') await writeParts(tx, actor.tenantId, blob.id, upload.file)
      if (blob.inserted && blob.store === 's3' && uploadedKey === undefined)
        throw new Problem(503, 'Service Unavailable', 'The file store changed meanwhile; send the file again.', {
          headers: { 'retry-after': '1' },
        })
      const attachmentId = await repo.insertAttachment(tx, {
        tenant_id: actor.tenantId,
        document_type: type,
        document_id: id,
        blob_id: blob.id,
        sha256: upload.sha256,
        filename,
        content_type: contentType,
        size: upload.sniffed.size,
        scan_status: scanned ? 'clean' : 'not_scanned',
        description: upload.description ?? '',
        vendor_visible: upload.vendorVisible ?? false,
        uploaded_by: actor.userId,
      })
      const attachment = toAttachment((await repo.findAttachment(tx, actor.tenantId, attachmentId))!)
      await audit(tx, actor, {
        action: 'attachment.create',
        resourceType: 'attachment',
        resourceId: attachmentId,
        changes: { document: attachment.document, filename, content_type: contentType, sha256: upload.sha256 },
      })
      await recordEvent(tx, actor.tenantId, 'attachment.created', attachment)
      return { attachment, keptKey: blob.inserted ? uploadedKey : undefined }
    })
    const unused = result.keptKey === undefined ? uploadedKey : undefined
    uploadedKey = undefined
    if (unused !== undefined) await discardUploaded(db, config, actor.tenantId, unused, upload.sniffed.size)
    return result.attachment
  } catch (error) {
    if (uploadedKey !== undefined) await discardUploaded(db, config, actor.tenantId, uploadedKey, upload.sniffed.size)
    throw error
  }
}

/** Receives, checks, scans and stores an upload in one call (for callers without an Idempotency-Key). */
export async function uploadAttachment(
  db: Kysely<DB>,
  config: Readonly<Config>,
  actor: Actor,
  type: AttachableType,
  id: number,
  request: FastifyRequest,
): Promise<Attachment> {
  const upload = await receiveAttachment(db, config, actor, type, id, request)
  try {
    return await storeAttachment(db, config, actor, type, id, upload)
  } finally {
    await upload.discard()
  }
}

/** Scans the file when a scanner is configured: true when clean; 422 naming what it found. */
async function scan(config: Readonly<Config>, file: string): Promise<boolean> {
  const scanner = clamd(config)
  if (scanner === undefined) return false
  const result = await scanFile(scanner, file)
  if (!result.clean)
    throw new Problem(
      422,
      'Unprocessable Content',
      `The virus scanner found ${result.signature} in the file, so it was not stored; do not upload it.`,
      { kind: 'malware-found' },
    )
  return true
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
