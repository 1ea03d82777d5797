/**
 * Where attachments' bytes live (DECISIONS: in the database by default, or in any S3-compatible store with
 * ATTACHMENT_STORE=s3). In the database a blob is `attachment_blob_parts`, 1 MiB each, written and read one
 * part at a time; in S3 an object under a key made fresh for each blob row (`<tenant>/<sha256>/<uuid>`), so
 * deleting a blob's object can never remove the object of a blob uploaded again meanwhile.
 *
 * An object store that cannot be reached, times out, or refuses a request (a missing bucket, wrong keys) is a
 * 503 problem naming the cause (the S3 error code or the network error), never a 500 or a hung request: the
 * client's connection and each request have time limits, and the SDK retries what is worth retrying first.
 */
import { randomUUID } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { Readable } from 'node:stream'
import type { S3Client } from '@aws-sdk/client-s3'
import type { Kysely } from 'kysely'
import type { Config } from '../config.ts'
import { Problem } from '../core/problem.ts'
import { transferred } from '../core/transfer-memory.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'

export const PART_BYTES = 1024 * 1024

/** A new object's key: made fresh for each blob row, so removing one blob's object never removes another's. */
export const newObjectKey = (tenantId: number, sha256: string) => `${tenantId}/${sha256}/${randomUUID()}`

/** How long connecting to the object store may take, and how long a connection may sit idle mid-request. */
const CONNECT_TIMEOUT_MS = 10_000
const IDLE_TIMEOUT_MS = 120_000

export interface BlobStore {
  kind: 'database' | 's3'
  /** Puts the spooled file in the object store under `key` (`newObjectKey`) before the row is written (S3 only). */
  put?(key: string, file: string): Promise<void>
  /** The bytes of a blob row, as a stream. */
  read(db: Kysely<DB>, blob: { tenant_id: number; id: number; s3_key: string | null }): Promise<Readable>
  /** Removes an object whose row is gone (S3 only; the database's parts go with their row). */
  remove?: (key: string) => Promise<void>
}

/**
 * Writes the spooled file's bytes as the parts of blob `blobId`. Two buffers take turns: the next part is
 * read from the file while the last one is written, and no part gets a buffer of its own (1 MiB of garbage
 * a part, left for the collector, was most of an upload's memory growth).
 */
export async function writeParts(db: Kysely<DB>, tenantId: number, blobId: number, file: string) {
  const handle = await open(file, 'r')
  try {
    const buffers = [Buffer.allocUnsafe(PART_BYTES), Buffer.allocUnsafe(PART_BYTES)] as const
    let position = 0
    let next = handle.read(buffers[0], 0, PART_BYTES, 0)
    for (let n = 0; ; n++) {
      const { bytesRead, buffer } = await next
      if (bytesRead === 0) return
      position += bytesRead
      next = handle.read(buffers[(n + 1) % 2]!, 0, PART_BYTES, position)
      // Seen by the next turn; if the insert fails first, its failure is the one that counts.
      next.catch(() => undefined)
      await repo.insertPart(db, tenantId, blobId, n, buffer.subarray(0, bytesRead))
      transferred(bytesRead)
    }
  } finally {
    await handle.close()
  }
}

/**
 * A part is read SLICE_BYTES at a time. A whole 1 MiB part comes back from PostgreSQL as one 2 MiB hex
 * message, which the driver gathers into buffers doubled up to 4 MiB and decodes once more: some 9 MB of
 * short-lived memory per MiB sent, that the garbage collector let pile up to tens of MB in a download. A
 * 48 KiB slice's answer is a few socket reads, and its garbage is small enough to be collected young
 * (measured in docs/benchmarks.md, "Attachments' memory").
 */
const SLICE_BYTES = 48 * 1024

const databaseStore: BlobStore = {
  kind: 'database',
  read: (db, blob) => {
    const slice = (part: number, from: number) => {
      const reading = repo.readPartSlice(db, blob.tenant_id, blob.id, part, from, SLICE_BYTES)
      // Looked at by the next turn; a download its reader left meanwhile never looks, and must not crash.
      reading.catch(() => undefined)
      return { part, from, reading }
    }
    async function* slices() {
      let next = slice(0, 0)
      for (;;) {
        const { part, from, reading } = next
        const got = await reading
        if (got === undefined) return
        // The following slice is asked for before this one is handed on: the database works while it is sent.
        next = from + SLICE_BYTES < got.size ? slice(part, from + SLICE_BYTES) : slice(part + 1, 0)
        const { data } = got
        transferred(data.byteLength)
        if (data.byteLength > 0) yield Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      }
    }
    // A few slices read ahead, so the next ones are on their way while the socket sends the last.
    return Promise.resolve(Readable.from(slices(), { objectMode: false, highWaterMark: 4 * SLICE_BYTES }))
  },
}

/** S3 error codes that mean the store is set up wrongly (bucket, keys, region), not that it is down. */
const REFUSALS =
  /^(NoSuchBucket|AccessDenied|AllAccessDisabled|InvalidAccessKeyId|SignatureDoesNotMatch|InvalidBucketName|PermanentRedirect|AuthorizationHeaderMalformed|InvalidRequest|InvalidArgument|Forbidden)$/

/** The cause of an object store failure in a word an operator can look up: the S3 error code or the errno. */
export function reasonOf(error: unknown): string {
  if (error === null || typeof error !== 'object') return 'no answer'
  const e = error as { code?: unknown; Code?: unknown; name?: unknown; errors?: unknown; cause?: unknown }
  if (typeof e.code === 'string' && e.code !== '') return e.code
  if (typeof e.Code === 'string' && e.Code !== '') return e.Code
  if (Array.isArray(e.errors) && e.errors.length > 0) return reasonOf(e.errors[0])
  if (typeof e.name === 'string' && e.name !== '' && e.name !== 'Error') return e.name
  if (e.cause !== undefined && e.cause !== error) return reasonOf(e.cause)
  return 'no answer'
}

/** What the client is told when the object store fails while `doing` (a store, a read or a removal). */
export function storeFailed(error: unknown, doing: 'store' | 'read'): Problem {
  if (error instanceof Problem) return error
  const why = reasonOf(error)
  const consequence = doing === 'store' ? 'so nothing was stored' : 'so the file cannot be read now'
  if (doing === 'read' && why === 'NoSuchKey')
    return new Problem(
      503,
      'Service Unavailable',
      "The file store no longer holds this attachment's bytes (NoSuchKey); an administrator must restore the " +
        'object from a backup of the bucket.',
      { kind: 'unavailable' },
    )
  if (REFUSALS.test(why))
    return new Problem(
      503,
      'Service Unavailable',
      `The file store refused the request (${why}), ${consequence}; an administrator must check the S3_* ` +
        'settings (bucket, region, keys) against the store.',
      { kind: 'unavailable', headers: { 'retry-after': '60' } },
    )
  return new Problem(
    503,
    'Service Unavailable',
    `The file store is not available (${why}), ${consequence}; try again in a minute.`,
    { kind: 'unavailable', headers: { 'retry-after': '30' } },
  )
}

const missingSettings = (config: Readonly<Config>) =>
  (['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).filter((name) => config[name] === undefined)

/** The S3 client, made on first use (the SDK is large; a service storing in its database never loads it). */
async function s3Store(config: Readonly<Config>): Promise<BlobStore> {
  const missing = missingSettings(config)
  if (missing.length > 0) {
    // Only reachable for blobs written to S3 earlier, read by a service now set to store in its database.
    const unset = () =>
      new Problem(
        503,
        'Service Unavailable',
        `This attachment is in the S3 store, but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} ` +
          'not set; an administrator must set the S3_* settings the file was stored with.',
        { kind: 'unavailable' },
      )
    return {
      kind: 's3',
      read: () => Promise.reject(unset()),
      remove: () => Promise.reject(unset()),
    }
  }
  const { S3Client, GetObjectCommand, DeleteObjectCommand } = await import('@aws-sdk/client-s3')
  const { Upload } = await import('@aws-sdk/lib-storage')
  const client: S3Client = new S3Client({
    region: config.S3_REGION,
    ...(config.S3_ENDPOINT === undefined ? {} : { endpoint: config.S3_ENDPOINT }),
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials: { accessKeyId: config.S3_ACCESS_KEY_ID!, secretAccessKey: config.S3_SECRET_ACCESS_KEY! },
    // Checksums only where the API requires them: MinIO-style servers refuse the newer default trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that accepts no connection, or stops answering mid-request, fails the request (503), not hangs it.
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: IDLE_TIMEOUT_MS },
  })
  const Bucket = config.S3_BUCKET!
  return {
    kind: 's3',
    async put(Key, file) {
      const upload = new Upload({
        client,
        params: { Bucket, Key, Body: createReadStream(file), ContentType: 'application/octet-stream' },
        queueSize: 2,
        partSize: 5 * 1024 * 1024,
      })
      try {
        await upload.done()
      } catch (error) {
        throw storeFailed(error, 'store')
      }
    },
    async read(_db, blob) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: blob.s3_key! }))
        return out.Body as Readable
      } catch (error) {
        throw storeFailed(error, 'read')
      }
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }))
    },
  }
}

let configured: Readonly<Config> | undefined

/** The service's settings for reads outside a route that has them (an order's `send`); set by the routes. */
export function useStoreConfig(config: Readonly<Config>): void {
  configured = config
}
export const storeConfig = (): Readonly<Config> => {
  if (configured === undefined) throw new Error('attachment store used before useStoreConfig')
  return configured
}

let s3: Promise<BlobStore> | undefined
let s3Config: Readonly<Config> | undefined

/** The store new uploads go to (ATTACHMENT_STORE). */
export function storeFor(config: Readonly<Config>): Promise<BlobStore> {
  if (config.ATTACHMENT_STORE !== 's3') return Promise.resolve(databaseStore)
  return s3StoreOf(config)
}

/** The store that holds an existing blob (a blob keeps the store it was written to). */
export function storeOfBlob(config: Readonly<Config>, blob: { store: 'database' | 's3' }): Promise<BlobStore> {
  return blob.store === 's3' ? s3StoreOf(config) : Promise.resolve(databaseStore)
}

function s3StoreOf(config: Readonly<Config>): Promise<BlobStore> {
  if (s3 === undefined || s3Config !== config) {
    s3Config = config
    s3 = s3Store(config)
  }
  return s3
}
