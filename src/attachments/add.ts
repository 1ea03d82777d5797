/**
 * Adding an attachment (DECISIONS, "Attachments and comments"), in three steps:
 *
 * 1. `receiveAttachment`: the right to act on the document (403), then the multipart upload, spooled, hashed
 *    and counted (upload.ts).
 * 2. `prepareUpload`: the rules about the file itself, before anything is stored. `vendor_visible` is for
 *    orders only. The type comes from the bytes and must be on the allow-list (415 naming what was found).
 *    The file is scanned when clamd is configured (422 naming the signature, 503 when it cannot answer). In S3,
 *    the object is written now, unless the tenant already holds these bytes. Its key is recorded first, as an
 *    upload intent committed before the object exists (removal.ts), so an upload that never commits leaves
 *    a row the sweep finds, whether it crashed or its commit failed.
 * 3. `storeAttachment`: the rows, in one transaction. The document is locked, the limit of 50 checked (409),
 *    the blob row made or shared, and the parts written, or the intent taken into use.
 *
 * `releaseUpload` removes an object that was written and not used: the same bytes were stored meanwhile, or a
 * later step failed.
 *
 * With an Idempotency-Key the route runs step 3 inside the request's own transaction, and step 2 before that
 * transaction begins: nothing here waits for a second connection while the request holds one.
 */
import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { Config } from '../config.ts'
import { conflict, Problem, validationFailed } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { scanFile, type ClamdAddress } from './clamav.ts'
import { ALLOWED_TYPES, cleanFilename, describeType, detectType } from './detect.ts'
import type { AttachableType } from './documents.ts'
import { abandonIntent } from './removal.ts'
import * as repo from './repository.ts'
import type { Attachment } from './schema.ts'
import { documentFor, MAX_PER_DOCUMENT, NOUNS, requireAct, toAttachment } from './service.ts'
import { newObjectKey, storeFor, writeParts } from './store.ts'
import { receiveUpload, type Upload } from './upload.ts'

/** What `prepareUpload` found and did: the detected type, whether it was scanned, and an S3 object it wrote. */
export interface Prepared {
  contentType: string
  scanned: boolean
  /** The upload intent of an object written to S3 for this upload (removal.ts). */
  intent: repo.PendingRemoval | undefined
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

const sendAgain = (why: string) =>
  new Problem(503, 'Service Unavailable', `${why}; send the file again.`, { headers: { 'retry-after': '1' } })

/**
 * Checks that the actor may add attachments to document (`type`, `id`), then receives the upload (spooled,
 * hashed, counted). The caller discards the spool in `finally`.
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

/** Step 2: the file's own rules, then (S3) its object written under a recorded intent. `db` must not be in a transaction. */
export async function prepareUpload(
  db: Kysely<DB>,
  config: Readonly<Config>,
  actor: Actor,
  type: AttachableType,
  upload: Upload,
): Promise<Prepared> {
  if (upload.vendorVisible !== undefined && type !== 'purchase_order')
    throw validationFailed(
      { vendor_visible: ['is for purchase orders only'] },
      'vendor_visible applies to purchase orders only; leave it out.',
    )
  const contentType = await detectType(upload.file, upload.sniffed)
  if (!ALLOWED_TYPES.has(contentType)) throw refused(contentType)
  const scanned = await scan(config, upload.file)
  const store = await storeFor(config)
  if (store.put === undefined || (await repo.blobExists(db, actor.tenantId, upload.sha256)))
    return { contentType, scanned, intent: undefined }
  const key = newObjectKey(actor.tenantId, upload.sha256)
  const intent = await repo.recordUploadIntent(db, actor.tenantId, key, upload.sniffed.size)
  try {
    await store.put(key, upload.file)
  } catch (error) {
    await releaseUpload(db, config, { contentType, scanned, intent }, false)
    throw error
  }
  return { contentType, scanned, intent }
}

/**
 * Step 3: the attachment's rows, in one transaction; `used` says whether the object `prepared` wrote is now
 * the blob's (false when the same bytes were stored meanwhile, and it is not needed).
 */
export async function storeAttachment(
  db: Kysely<DB>,
  config: Readonly<Config>,
  actor: Actor,
  type: AttachableType,
  id: number,
  upload: Upload,
  prepared: Prepared,
): Promise<{ attachment: Attachment; used: boolean }> {
  const store = await storeFor(config)
  const { intent } = prepared
  const filename = cleanFilename(upload.filename)
  return inTransaction(db, async (tx) => {
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
      store: intent === undefined && store.kind === 's3' ? 's3' : store.kind,
      s3_key: intent?.s3_key ?? null,
    })
    if (blob.inserted && blob.store === 'database') await writeParts(tx, actor.tenantId, blob.id, upload.file)
    if (blob.inserted && blob.store === 's3') {
      // The bytes were gone when the object was not written (deleted meanwhile), or the intent was swept.
      if (intent === undefined) throw sendAgain('The file store changed meanwhile')
      if (!(await repo.claimUploadIntent(tx, actor.tenantId, intent.id)))
        throw sendAgain('The stored copy of the file was removed while the upload waited')
    }
    const attachmentId = await repo.insertAttachment(tx, {
      tenant_id: actor.tenantId,
      document_type: type,
      document_id: id,
      blob_id: blob.id,
      sha256: upload.sha256,
      filename,
      content_type: prepared.contentType,
      size: upload.sniffed.size,
      scan_status: prepared.scanned ? 'clean' : 'not_scanned',
      description: upload.description ?? '',
      vendor_visible: upload.vendorVisible ?? false,
      uploaded_by: actor.userId,
    })
    const attachment = toAttachment((await repo.findAttachment(tx, actor.tenantId, attachmentId))!)
    await audit(tx, actor, {
      action: 'attachment.create',
      resourceType: 'attachment',
      resourceId: attachmentId,
      changes: { document: attachment.document, filename, content_type: prepared.contentType, sha256: upload.sha256 },
    })
    await recordEvent(tx, actor.tenantId, 'attachment.created', attachment)
    return { attachment, used: blob.inserted && intent !== undefined }
  })
}

/**
 * Removes the object `prepared` wrote when it was not `used`, or records its removal when the store does not
 * answer (removal.ts). `db` must not be in a transaction that took the intent.
 */
export async function releaseUpload(db: Kysely<DB>, config: Readonly<Config>, prepared: Prepared, used: boolean) {
  if (prepared.intent === undefined || used) return
  await abandonIntent(db, config, prepared.intent)
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
    const prepared = await prepareUpload(db, config, actor, type, upload)
    let used = false
    try {
      const stored = await storeAttachment(db, config, actor, type, id, upload, prepared)
      used = stored.used
      return stored.attachment
    } finally {
      await releaseUpload(db, config, prepared, used)
    }
  } finally {
    await upload.discard()
  }
}
