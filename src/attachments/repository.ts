/** SQL for attachments and their content-addressed blobs. */
import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { compiledOnce } from '../db/compiled.ts'
import { personJson } from '../db/joins.ts'
import type { DB } from '../db/schema.ts'
import type { AttachableType } from './documents.ts'
import './tables.ts'

const selectAttachments = (db: Kysely<DB>) =>
  db
    .selectFrom('attachments as a')
    .select([
      'a.id',
      'a.tenant_id',
      'a.document_type',
      'a.document_id',
      'a.blob_id',
      'a.sha256',
      'a.filename',
      'a.content_type',
      'a.size',
      'a.scan_status',
      'a.description',
      'a.vendor_visible',
      'a.uploaded_by',
      'a.created_at',
      personJson(sql.ref('a.uploaded_by'), sql.ref('a.tenant_id')).as('uploader'),
    ])

export type AttachmentRow = Awaited<ReturnType<ReturnType<typeof selectAttachments>['executeTakeFirstOrThrow']>>

export const findAttachment = (db: Kysely<DB>, tenantId: number, id: number) =>
  selectAttachments(db).where('a.tenant_id', '=', tenantId).where('a.id', '=', id).executeTakeFirst()

/** The attachments of these documents, oldest first. */
export function attachmentsOf(
  db: Kysely<DB>,
  tenantId: number,
  documents: readonly { type: AttachableType; id: number }[],
) {
  if (documents.length === 0) return Promise.resolve([])
  return selectAttachments(db)
    .where('a.tenant_id', '=', tenantId)
    .where((eb) =>
      eb.or(documents.map((d) => eb.and([eb('a.document_type', '=', d.type), eb('a.document_id', '=', d.id)]))),
    )
    .orderBy('a.created_at')
    .orderBy('a.id')
    .execute()
}

export async function countOf(db: Kysely<DB>, tenantId: number, type: AttachableType, id: number) {
  const row = await db
    .selectFrom('attachments')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('document_type', '=', type)
    .where('document_id', '=', id)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Uploads to one document take turns (the count of 50 holds under concurrent uploads). */
export async function lockDocument(db: Kysely<DB>, tenantId: number, type: AttachableType, id: number) {
  await sql`select pg_advisory_xact_lock(${tenantId}::int, hashtext(${`attachments:${type}:${id}`}))`.execute(db)
}

/**
 * The blob of these bytes, made when new: an upsert that locks an existing row (so a concurrent delete of
 * its last reference waits for this upload, then sees the new reference), `inserted` when the row is new.
 */
export async function upsertBlob(
  db: Kysely<DB>,
  blob: { tenant_id: number; sha256: string; size: number; store: 'database' | 's3'; s3_key: string | null },
) {
  const { rows } = await sql<{ id: number; inserted: boolean; store: 'database' | 's3'; s3_key: string | null }>`
    insert into attachment_blobs (tenant_id, sha256, size, store, s3_key)
    values (${blob.tenant_id}, ${blob.sha256}, ${blob.size}, ${blob.store}, ${blob.s3_key})
    on conflict (tenant_id, sha256) do update set sha256 = excluded.sha256
    returning id, (xmax = 0) as inserted, store, s3_key`.execute(db)
  return rows[0]!
}

export const blobExists = async (db: Kysely<DB>, tenantId: number, sha256: string) =>
  (await db
    .selectFrom('attachment_blobs')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('sha256', '=', sha256)
    .executeTakeFirst()) !== undefined

export const findBlob = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('attachment_blobs')
    .select(['tenant_id', 'id', 'store', 's3_key', 'size'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()

export const insertPart = (db: Kysely<DB>, tenantId: number, blobId: number, id: number, data: Buffer) =>
  db.insertInto('attachment_blob_parts').values({ tenant_id: tenantId, blob_id: blobId, id, data }).execute()

const partSlice = compiledOnce(
  (db: Kysely<DB>, tenantId: number, blobId: number, id: number, start: number, length: number) =>
    db
      .selectFrom('attachment_blob_parts')
      .select([
        sql<Uint8Array>`substring(data from ${start} for ${length})`.as('data'),
        sql<number>`octet_length(data)`.as('size'),
      ])
      .where('tenant_id', '=', tenantId)
      .where('blob_id', '=', blobId)
      .where('id', '=', id),
)

/**
 * `length` bytes of part `id` of a blob from byte `from` (0-based), and the part's whole size; undefined when
 * the blob has no such part. Compiled once: a download runs it for every slice.
 */
export const readPartSlice = async (
  db: Kysely<DB>,
  tenantId: number,
  blobId: number,
  id: number,
  from: number,
  length: number,
) => (await partSlice(db, tenantId, blobId, id, from + 1, length))[0]

export async function insertAttachment(
  db: Kysely<DB>,
  values: {
    tenant_id: number
    document_type: AttachableType
    document_id: number
    blob_id: number
    sha256: string
    filename: string
    content_type: string
    size: number
    scan_status: 'not_scanned' | 'clean'
    description: string
    vendor_visible: boolean
    uploaded_by: number | null
  },
) {
  const row = await db.insertInto('attachments').values(values).returning('id').executeTakeFirstOrThrow()
  return row.id
}

export const deleteAttachment = (db: Kysely<DB>, tenantId: number, id: number) =>
  db.deleteFrom('attachments').where('tenant_id', '=', tenantId).where('id', '=', id).execute()

/** An unused S3 object whose removal is recorded (its detached blob row): removed, then the row forgotten. */
export interface PendingRemoval {
  tenant_id: number
  id: number
  s3_key: string
}

/**
 * What a detached blob row's `sha256` holds instead of a digest: never a lowercase hex SHA-256 (it has a space
 * and letters past f), unique per row, so no upload of any bytes can find the row and refer to it again.
 */
const REMOVAL_MARK = 'removing '
const removalMark = () => `${REMOVAL_MARK}${randomUUID()}`

/**
 * Lets go of the blob when no attachment refers to it any more: its row locked first, so an upload of the same
 * bytes running now either finishes first (and its reference is seen) or waits and makes the blob again.
 * A blob in the database is deleted with its parts. A blob in S3 is detached (see removal.ts) and returned,
 * for its object to be removed after the commit. Undefined when the blob is still referred to.
 */
export async function releaseBlobIfUnused(
  db: Kysely<DB>,
  tenantId: number,
  blobId: number,
): Promise<PendingRemoval | undefined> {
  const blob = await db
    .selectFrom('attachment_blobs')
    .select(['id', 'tenant_id', 's3_key'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', blobId)
    .forUpdate()
    .executeTakeFirst()
  if (blob === undefined) return undefined
  const used = await db
    .selectFrom('attachments')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('blob_id', '=', blobId)
    .limit(1)
    .executeTakeFirst()
  if (used !== undefined) return undefined
  if (blob.s3_key === null) {
    await db.deleteFrom('attachment_blobs').where('tenant_id', '=', tenantId).where('id', '=', blobId).execute()
    return undefined
  }
  await db
    .updateTable('attachment_blobs')
    .set({ sha256: removalMark() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', blobId)
    .execute()
  return { tenant_id: blob.tenant_id, id: blob.id, s3_key: blob.s3_key }
}

/**
 * What an upload intent's `sha256` holds: a row recorded, and committed, before an upload writes its S3 object,
 * and deleted in the transaction that makes the object a blob's (removal.ts). Never a SHA-256, like the
 * removal mark.
 */
const INTENT_MARK = 'uploading '

/** Records that an upload is about to write the S3 object `key`; the intent, to be claimed or abandoned. */
export const recordUploadIntent = (db: Kysely<DB>, tenantId: number, key: string, size: number) =>
  db
    .insertInto('attachment_blobs')
    .values({ tenant_id: tenantId, sha256: `${INTENT_MARK}${randomUUID()}`, size, store: 's3', s3_key: key })
    .returning(['tenant_id', 'id', sql<string>`s3_key`.as('s3_key')])
    .executeTakeFirstOrThrow()

/** Takes an upload's object into use: its intent goes. False when the intent is gone (the sweep abandoned it). */
export async function claimUploadIntent(db: Kysely<DB>, tenantId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('attachment_blobs')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('sha256', 'like', sql.lit(`${INTENT_MARK}%`))
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** Turns an upload's intent into a recorded removal of its object; undefined when it was claimed or is gone. */
export const abandonUploadIntent = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .updateTable('attachment_blobs')
    .set({ sha256: removalMark() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('sha256', 'like', sql.lit(`${INTENT_MARK}%`))
    .returning(['tenant_id', 'id', sql<string>`s3_key`.as('s3_key')])
    .executeTakeFirst()

/** Upload intents recorded before `before`, oldest first, in every tenant: uploads that never finished. */
export const staleUploadIntents = (db: Kysely<DB>, before: Date, limit: number) =>
  db
    .selectFrom('attachment_blobs')
    .select(['tenant_id', 'id'])
    .where('sha256', 'like', sql.lit(`${INTENT_MARK}%`))
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute()

/**
 * Recorded removals, oldest first, in every tenant (the sweep's work). The marks are written into the SQL as
 * literals so that the partial index on marked rows (migration 0037) serves these look-ups.
 */
export const pendingRemovals = (db: Kysely<DB>, limit: number): Promise<PendingRemoval[]> =>
  db
    .selectFrom('attachment_blobs')
    .select(['tenant_id', 'id', sql<string>`s3_key`.as('s3_key')])
    .where('store', '=', 's3')
    .where('s3_key', 'is not', null)
    .where('sha256', 'like', sql.lit(`${REMOVAL_MARK}%`))
    .orderBy('created_at')
    .limit(limit)
    .execute()

/** Forgets a recorded removal once the store has confirmed it. */
export const forgetRemoval = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .deleteFrom('attachment_blobs')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('sha256', 'like', sql.lit(`${REMOVAL_MARK}%`))
    .execute()

/** The orders made from a request (an order lists its request's attachments). */
export const ordersOfRequest = (db: Kysely<DB>, tenantId: number, requestId: number) =>
  db
    .selectFrom('purchase_orders')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('request_id', '=', requestId)
    .orderBy('id')
    .limit(100)
    .execute()

/** The order's attachments marked for the vendor (sent with `send`). */
export const vendorVisibleOf = (db: Kysely<DB>, tenantId: number, orderId: number) =>
  db
    .selectFrom('attachments as a')
    .innerJoin('attachment_blobs as b', (join) =>
      join.onRef('b.tenant_id', '=', 'a.tenant_id').onRef('b.id', '=', 'a.blob_id'),
    )
    .select(['a.filename', 'a.content_type', 'a.size', 'b.tenant_id', 'b.id', 'b.store', 'b.s3_key'])
    .where('a.tenant_id', '=', tenantId)
    .where('a.document_type', '=', 'purchase_order')
    .where('a.document_id', '=', orderId)
    .where('a.vendor_visible', '=', true)
    .orderBy('a.id')
    .execute()
