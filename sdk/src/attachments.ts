/**
 * Attachments and comments on any document (requests, purchase orders, receipts, bills, expense reports,
 * travel requests, payment requests). Uploads are `multipart/form-data` sent as they are read — from a file
 * path (Node), bytes, a Blob, or a stream — never held whole; downloads come back as a stream. An upload
 * carries an Idempotency-Key like every POST: a retried upload of the same file stores it once.
 */
import type { components } from './generated/openapi.ts'
import type { RawBody, Transport } from './http.ts'

type Schemas = components['schemas']
export type Attachment = Schemas['Attachment']
export type Comment = Schemas['Comment']

/** The kinds of document that take attachments and comments. */
export type DocumentKind =
  'requests' | 'purchase-orders' | 'receipts' | 'bills' | 'expense-reports' | 'travel-requests' | 'payment-requests'

/** A document: its kind (as in its path) and id. */
export interface DocumentRef {
  kind: DocumentKind
  id: number
}

/**
 * What to upload: a file path (Node only; read as it is sent), bytes (a Buffer is a Uint8Array), a Blob, a
 * web ReadableStream, or any async iterable of bytes (a Node Readable, e.g. `fs.createReadStream(path)`).
 */
export type UploadSource = string | Uint8Array | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>

export interface UploadOptions {
  /** The file's name (default: the path's base name, or `file`). Only its base name is kept. */
  filename?: string
  description?: string
  /** Purchase orders only: send the file with the order's e-mail to the vendor. */
  vendorVisible?: boolean
  /** The Idempotency-Key (default: a new one per call, reused by its retries). */
  idempotencyKey?: string
}

/** A download: the bytes as a stream, and what the headers say about them. */
export interface Download {
  body: ReadableStream<Uint8Array>
  contentType: string
  /** The file's name, from Content-Disposition. */
  filename: string
  size: number
  sha256: string
}

/** Where `downloadTo` writes: a web WritableStream, or a Node Writable (anything with write/once/end). */
export type DownloadTarget =
  | WritableStream<Uint8Array>
  | {
      write(chunk: Uint8Array): boolean
      once(event: 'drain' | 'error', listener: (error?: unknown) => void): unknown
      removeListener(event: 'drain' | 'error', listener: (error?: unknown) => void): unknown
      end(callback?: () => void): unknown
    }

interface FsModule {
  openAsBlob(path: string): Promise<Blob>
}

const baseName = (path: string) => path.split(/[/\\]/).pop() || 'file'
const quoted = (value: string) => value.replace(/["\\\r\n]/g, (c) => encodeURIComponent(c))

/** A multipart body written as the source is read (for streams, which can be sent only once). */
function streamingForm(fields: [string, string][], filename: string, source: UploadSource): RawBody {
  const boundary = `----procurement-sdk-${crypto.randomUUID()}`
  const encoder = new TextEncoder()
  const head =
    fields
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(filename)}"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n'
  async function* parts(): AsyncGenerator<Uint8Array> {
    yield encoder.encode(head)
    const chunks = source instanceof ReadableStream ? iterate(source) : (source as AsyncIterable<Uint8Array | string>)
    for await (const chunk of chunks) yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk
    yield encoder.encode(`\r\n--${boundary}--\r\n`)
  }
  let used = false
  return {
    replayable: false,
    contentType: `multipart/form-data; boundary=${boundary}`,
    make() {
      if (used) throw new Error('A stream can be sent only once.')
      used = true
      const iterator = parts()
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await iterator.next()
          if (next.done === true) controller.close()
          else controller.enqueue(next.value)
        },
        async cancel() {
          await iterator.return(undefined)
        },
      })
    },
  }
}

async function* iterate(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      yield value
    }
  } finally {
    reader.releaseLock()
  }
}

/** Bytes, a Blob, or a file path (opened as a Blob, read as it is sent): a FormData, sent again on a retry. */
async function blobOf(source: string | Uint8Array | Blob): Promise<Blob> {
  if (source instanceof Blob) return source
  if (typeof source !== 'string') return new Blob([source as Uint8Array<ArrayBuffer>])
  // A variable specifier: bundlers for the browser leave Node's module alone.
  const fs = (await import(['node', 'fs'].join(':'))) as FsModule
  return fs.openAsBlob(source)
}

/** The name in `filename*=UTF-8''…` (or `filename="…"`) of a Content-Disposition header. */
function dispositionName(header: string | null): string {
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header ?? '')
  if (star !== null) return decodeURIComponent(star[1]!)
  return /filename="([^"]*)"/i.exec(header ?? '')?.[1] ?? ''
}

export class Attachments {
  constructor(private readonly http: Transport) {}

  /** @example const { data } = await client.attachments.list({ kind: 'purchase-orders', id: 42 }) */
  async list(document: DocumentRef): Promise<{ data: Attachment[] }> {
    const { data } = await this.http.request<{ data: Attachment[] }>('GET', `${pathOf(document)}attachments/`)
    return { data: data.data }
  }

  /**
   * Uploads a file to a document; the attachment (201).
   * @example await client.attachments.upload({ kind: 'requests', id: 7 }, './quote.pdf', { description: 'Quote' })
   * @example await client.attachments.upload({ kind: 'bills', id: 3 }, fs.createReadStream('scan.pdf'), { filename: 'scan.pdf' })
   */
  async upload(document: DocumentRef, source: UploadSource, options: UploadOptions = {}): Promise<Attachment> {
    const filename = options.filename ?? (typeof source === 'string' ? baseName(source) : 'file')
    const fields: [string, string][] = []
    if (options.description !== undefined) fields.push(['description', options.description])
    if (options.vendorVisible !== undefined) fields.push(['vendor_visible', String(options.vendorVisible)])
    let rawBody: RawBody
    if (typeof source === 'string' || source instanceof Uint8Array || source instanceof Blob) {
      const blob = await blobOf(source)
      rawBody = {
        replayable: true,
        make() {
          const form = new FormData()
          for (const [name, value] of fields) form.append(name, value)
          form.append('file', blob, filename)
          return form
        },
      }
    } else {
      rawBody = streamingForm(fields, filename, source)
    }
    const { data } = await this.http.request<{ data: Attachment }>('POST', `${pathOf(document)}attachments/`, {
      rawBody,
      idempotencyKey: options.idempotencyKey,
    })
    return data.data
  }

  async get(id: number): Promise<Attachment> {
    return (await this.http.request<{ data: Attachment }>('GET', `/api/v3/attachments/${id}/`)).data.data
  }

  /** Deletes an attachment (its uploader while the document is a draft or awaiting approval, or a superuser). */
  async delete(id: number): Promise<void> {
    await this.http.request('DELETE', `/api/v3/attachments/${id}/`)
  }

  /**
   * The attachment's bytes as a stream (read it, or cancel it, to free the connection).
   * @example const { body } = await client.attachments.download(5); await pipeline(Readable.fromWeb(body), fs.createWriteStream('quote.pdf'))
   */
  async download(id: number): Promise<Download> {
    const response = await this.http.requestStream('GET', `/api/v3/attachments/${id}/content`)
    if (response.body === null) throw new Error(`The download of attachment ${id} has no body.`)
    return {
      body: response.body,
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      filename: dispositionName(response.headers.get('content-disposition')),
      size: Number(response.headers.get('content-length') ?? Number.NaN),
      sha256: (response.headers.get('etag') ?? '').replace(/^(W\/)?"|"$/g, ''),
    }
  }

  /**
   * Writes the attachment's bytes to `target` (a Node Writable such as `fs.createWriteStream(path)`, or a web
   * WritableStream), honouring its backpressure; resolves once all is written and the target ended.
   * @example await client.attachments.downloadTo(5, fs.createWriteStream('quote.pdf'))
   */
  async downloadTo(id: number, target: DownloadTarget): Promise<Omit<Download, 'body'>> {
    const { body, ...about } = await this.download(id)
    if (target instanceof WritableStream) {
      await body.pipeTo(target)
      return about
    }
    for await (const chunk of iterate(body)) {
      if (!target.write(chunk))
        await new Promise<void>((resolve, reject) => {
          const drained = () => {
            target.removeListener('error', failed)
            resolve()
          }
          const failed = (error?: unknown) => {
            target.removeListener('drain', drained)
            reject(error instanceof Error ? error : new Error(String(error)))
          }
          target.once('drain', drained)
          target.once('error', failed)
        })
    }
    await new Promise<void>((resolve) => target.end(() => resolve()))
    return about
  }
}

export class Comments {
  constructor(private readonly http: Transport) {}

  /** A document's comments, oldest first. */
  async list(document: DocumentRef): Promise<{ data: Comment[] }> {
    const { data } = await this.http.request<{ data: Comment[] }>('GET', `${pathOf(document)}comments/`)
    return { data: data.data }
  }

  /**
   * Adds a comment; `@` followed by a user's e-mail mentions them (they get an e-mail).
   * @example await client.comments.add({ kind: 'purchase-orders', id: 42 }, '@ada@example.com can you check the quote?')
   */
  async add(document: DocumentRef, body: string, options: { idempotencyKey?: string } = {}): Promise<Comment> {
    const { data } = await this.http.request<{ data: Comment }>('POST', `${pathOf(document)}comments/`, {
      body: { body },
      idempotencyKey: options.idempotencyKey,
    })
    return data.data
  }

  /** Deletes a comment (its author within 15 minutes, or a superuser). */
  async delete(id: number): Promise<void> {
    await this.http.request('DELETE', `/api/v3/comments/${id}/`)
  }
}

const pathOf = (document: DocumentRef) => `/api/v3/${document.kind}/${document.id}/`
