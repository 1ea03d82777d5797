/**
 * Receiving an upload (DECISIONS, "Attachments and comments"): a `multipart/form-data` body with one `file`
 * part and the optional fields `description` and `vendor_visible`. The file streams to a private temporary
 * file (the spool) while it is hashed (SHA-256), counted against ATTACHMENT_MAX_BYTES (413 the moment it
 * passes), checked for UTF-8 and NUL bytes, and its first bytes kept for type detection — memory stays at a
 * few chunks whatever the size. The caller scans, stores and then removes the spool (`discard`).
 */
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type {} from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { Problem, validationFailed } from '../core/problem.ts'
import { transferred } from '../core/transfer-memory.ts'
import type { Sniffed } from './detect.ts'
import { Utf8Check } from './utf8.ts'

const HEAD_BYTES = 65536

export interface Upload {
  /** The spooled file's path. */
  file: string
  filename: string
  sha256: string
  sniffed: Sniffed
  description: string | undefined
  vendorVisible: boolean | undefined
  /** Removes the spool (call in `finally`). */
  discard(): Promise<void>
}

export const tooLarge = (max: number) =>
  new Problem(
    413,
    'Payload Too Large',
    `The file is larger than ${max} bytes, the most this service accepts; send a smaller file.`,
    { kind: 'too-large' },
  )

const notMultipart = () =>
  new Problem(
    415,
    'Unsupported Media Type',
    'Send the file as multipart/form-data with one part named file (and optionally description).',
    { kind: 'unsupported-media-type' },
  )

/** The multipart errors of @fastify/multipart and busboy, as problems that say what to send instead. */
function multipartProblem(error: unknown): Problem {
  if (error instanceof Problem) return error
  const code = (error as { code?: string }).code
  if (code === 'FST_FILES_LIMIT')
    return validationFailed({ file: ['send exactly one file part'] }, 'Send one file part only.')
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT')
    return validationFailed(
      { body: ['too many parts'] },
      'Send one file part, and at most description and vendor_visible.',
    )
  if (code === 'FST_PROTO_VIOLATION')
    return validationFailed(
      { body: ['a part name is not allowed'] },
      'A part has a name that is not allowed; name the file part file.',
    )
  return validationFailed(
    { body: ['is not valid multipart/form-data'] },
    'The body is not valid multipart/form-data; send the form again.',
  )
}

const FIELDS = new Set(['description', 'vendor_visible'])
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

function fieldValue(name: string, value: unknown, truncated: boolean): string {
  if (typeof value !== 'string' || truncated || [...value].length > 1000)
    throw validationFailed(
      { [name]: ['must be at most 1000 characters'] },
      `The ${name} is too long; keep it to 1000 characters.`,
    )
  if (CONTROL.test(value))
    throw validationFailed(
      { [name]: ['must not contain control characters'] },
      `The ${name} contains control characters; remove them.`,
    )
  return value
}

function booleanField(value: string): boolean {
  const v = value.trim().toLowerCase()
  if (['true', '1', 'on', 'yes'].includes(v)) return true
  if (['false', '0', 'off', 'no', ''].includes(v)) return false
  throw validationFailed({ vendor_visible: ['must be true or false'] }, 'Send vendor_visible as true or false.')
}

export async function receiveUpload(request: FastifyRequest, maxBytes: number): Promise<Upload> {
  if (!request.isMultipart()) throw notMultipart()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'upload-'))
  const discard = () => rm(dir, { recursive: true, force: true })
  try {
    let received: Omit<Upload, 'description' | 'vendorVisible' | 'discard'> | undefined
    let description: string | undefined
    let vendorVisible: boolean | undefined
    const parts = request.parts({
      limits: { fileSize: maxBytes, files: 1, fields: 4, parts: 6, fieldSize: 8192, fieldNameSize: 100 },
    })
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume()
          throw validationFailed(
            { [part.fieldname]: ['is not a known part'] },
            `Name the file part file (not ${JSON.stringify(part.fieldname)}).`,
          )
        }
        const file = path.join(dir, 'file')
        const sniffed = await spool(part.file, file, maxBytes)
        received = { file, filename: part.filename ?? '', sha256: sniffed.sha256, sniffed }
      } else {
        if (!FIELDS.has(part.fieldname))
          throw validationFailed(
            { [part.fieldname]: ['is not a known part'] },
            `The part ${JSON.stringify(part.fieldname)} is not known; send file, description and vendor_visible only.`,
          )
        const value = fieldValue(part.fieldname, part.value, part.valueTruncated)
        if (part.fieldname === 'description') description = value
        else vendorVisible = booleanField(value)
      }
    }
    if (received === undefined)
      throw validationFailed({ file: ['is required'] }, 'Choose a file: the form has no file part.')
    if (received.sniffed.size === 0)
      throw validationFailed({ file: ['is empty'] }, 'The file is empty; choose a file with content.')
    return { ...received, description, vendorVisible, discard }
  } catch (error) {
    await discard()
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes)
    throw multipartProblem(error)
  }
}

/** Streams `source` into `file`: hashed, counted (413 past `max`), UTF-8 and NUL checked, its head kept. */
async function spool(source: NodeJS.ReadableStream & { truncated?: boolean }, file: string, max: number) {
  const hash = createHash('sha256')
  const utf8 = new Utf8Check()
  const head: Buffer[] = []
  let headSize = 0
  let size = 0
  let nul = false
  const inspect = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      if (size > max) return done(tooLarge(max))
      hash.update(chunk)
      transferred(chunk.length)
      if (!nul && chunk.includes(0)) nul = true
      utf8.push(chunk)
      if (headSize < HEAD_BYTES) {
        const piece = chunk.subarray(0, HEAD_BYTES - headSize)
        head.push(Buffer.from(piece))
        headSize += piece.length
      }
      done(null, chunk)
    },
  })
  await pipeline(source, inspect, createWriteStream(file, { mode: 0o600 }))
  if (source.truncated === true) throw tooLarge(max)
  return { sha256: hash.digest('hex'), head: Buffer.concat(head), size, utf8: utf8.end(), nul }
}
