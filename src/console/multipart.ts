/**
 * The console's file uploads (`<form method="post" enctype="multipart/form-data">`, working without
 * JavaScript) and their CSRF token. A urlencoded form's token is read from its parsed body (routes.ts); a
 * multipart body is a stream that the attachment service reads itself (src/attachments/upload.ts), so the
 * token travels as the body's FIRST part: every upload form of the console puts its hidden `_csrf` input
 * before the file input, and browsers send the parts in the form's order. `csrfPart` reads that one part —
 * a field named `_csrf`, at most 8 KiB — before a single byte of the file is read; anything else first (a
 * file, another field, nothing) counts as a missing token, so the request is refused (403) and nothing is
 * stored. The token never goes into the URL, where logs and histories would keep it.
 *
 * The parts after it stay unread for the service: `forwarded(request)` is the request as the service sees
 * it, its `parts()` continuing the same stream under the same limits (one file of at most
 * ATTACHMENT_MAX_BYTES, the service's few fields and this one).
 */
import type { Multipart } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { validationFailed } from '../core/problem.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A console route that takes a multipart upload form: its CSRF token is the body's first part. */
    multipartForm?: boolean
  }
}

const rest = new WeakMap<FastifyRequest, AsyncIterableIterator<Multipart>>()

/** Whether `request` is a multipart POST to a route that takes an upload form. */
export const isUploadForm = (request: FastifyRequest): boolean =>
  request.routeOptions.config.multipartForm === true &&
  typeof request.isMultipart === 'function' &&
  request.isMultipart()

/** The value of the body's first part if it is the `_csrf` field; else undefined. */
export async function csrfPart(request: FastifyRequest, maxBytes: number): Promise<string | undefined> {
  const parts = request.parts({
    limits: { fileSize: maxBytes, files: 1, fields: 5, parts: 7, fieldSize: 8192, fieldNameSize: 100 },
  })
  rest.set(request, parts)
  let first: IteratorResult<Multipart>
  try {
    first = await parts.next()
  } catch {
    throw validationFailed(
      { body: ['is not valid multipart/form-data'] },
      'The form could not be read; choose the file again and send the form once more.',
    )
  }
  if (first.done === true) return undefined
  const part = first.value
  if (part.type === 'file') {
    part.file.resume()
    return undefined
  }
  return part.fieldname === '_csrf' && typeof part.value === 'string' ? part.value : undefined
}

/** The request as the upload service reads it: the parts after the CSRF token. */
export function forwarded(request: FastifyRequest): FastifyRequest {
  const parts = rest.get(request)
  if (parts === undefined) return request
  return Object.create(request, { parts: { value: () => parts } }) as FastifyRequest
}
