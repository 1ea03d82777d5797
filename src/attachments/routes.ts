/**
 * /api/v3/{documents}/{id}/attachments/ and /api/v3/attachments/{id}/ (DECISIONS, "Attachments and comments"),
 * for every document registered in src/documents.ts. The upload reads its own multipart stream (upload.ts);
 * the download streams the stored bytes with headers that keep a browser from running them.
 */
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Readable } from 'node:stream'
import type { FastifyReply, FastifySchemaCompiler } from 'fastify'
import { Type } from 'typebox'
import type { Kysely } from 'kysely'
import type { Config } from '../config.ts'
import type { DB } from '../db/schema.ts'
import { deleteRoute, itemRoute } from '../http/item-routes.ts'
import { claimStreamed } from '../http/idempotency.ts'
import { ItemEnvelope, ListEnvelope } from '../http/list.ts'
import { validatorCompiler } from '../http/validation.ts'
import { ALLOWED_TYPES } from './detect.ts'
import { attachables } from './documents.ts'
import { Attachment, ItemParams, OrderUploadForm, UploadForm } from './schema.ts'
import * as add from './add.ts'
import * as service from './service.ts'
import { startRemovalSweep } from './removal.ts'
import { useStoreConfig } from './store.ts'

const tags = ['attachments']

/** All items in one page: a document has at most 50 attachments (and its request's). */
export const wholeList = <T>(data: T[]) => ({
  metadata: {
    pagination: {
      count: data.length,
      next: null,
      previous: null,
      page_size: Math.max(1, data.length),
      num_pages: 1,
      current_page: 1,
    },
  },
  data,
})

/** `filename*=UTF-8''…` (RFC 8187): every byte outside the attribute characters percent-encoded. */
export const contentDisposition = (filename: string) =>
  `attachment; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`

/** Whether `If-None-Match` names this ETag (or `*`); weak and strong compare alike for a GET. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

/**
 * An attachment's bytes as a download, for the API and the console alike: the detected type, attachment
 * disposition, nosniff, a sandboxing CSP and the SHA-256 as ETag (a matching `If-None-Match` → 304, the bytes
 * not opened).
 */
export async function sendContent(
  ifNoneMatch: string | undefined,
  reply: FastifyReply,
  attachment: { sha256: string; content_type: string; size: number; filename: string },
  open: () => Promise<Readable>,
) {
  const etag = `"${attachment.sha256}"`
  reply
    .header('etag', etag)
    .header('cache-control', 'private, no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "sandbox; default-src 'none'")
  if (matchesEtag(ifNoneMatch, etag)) return reply.code(304).send(null)
  const stream = await open()
  return reply
    .header('content-type', attachment.content_type)
    .header('content-length', String(attachment.size))
    .header('content-disposition', contentDisposition(attachment.filename))
    .send(stream)
}

export const attachmentRoutes =
  (config: Readonly<Config>, db: Kysely<DB>): FastifyPluginAsyncTypebox =>
  async (app) => {
    useStoreConfig(config)
    if (config.ATTACHMENT_STORE === 's3') {
      const stop = startRemovalSweep(db, config, app.log)
      app.addHook('onClose', stop)
    }
    await app.register(multipart, { limits: { fileSize: config.ATTACHMENT_MAX_BYTES } })
    // Any other body reaches the handler, which answers 415 naming what to send (upload.ts).
    app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined))

    for (const attachable of attachables()) {
      const url = `/v3/${attachable.segment}/:id/attachments/`
      const type = attachable.type
      app.route({
        method: 'GET',
        url,
        schema: {
          summary: `List a ${noun(type)}'s attachments (an order's include its request's)`,
          operationId: `list${pascal(type)}Attachments`,
          tags,
          params: ItemParams,
          response: { 200: ListEnvelope(Attachment) },
        },
        handler: async (request) =>
          wholeList(await service.listAttachments(request.db, request.actor, type, request.params.id)),
      })
      app.route({
        method: 'POST',
        url,
        config: { accessNeutral: true, streamedBody: true },
        // The body schema documents the form (OpenAPI); the handler reads and checks the stream itself.
        validatorCompiler: documentedBodyOnly,
        schema: {
          summary: `Attach a file to a ${noun(type)} (multipart/form-data: file, description${type === 'purchase_order' ? ', vendor_visible' : ''})`,
          description: UPLOAD_DESCRIPTION,
          operationId: `upload${pascal(type)}Attachment`,
          tags,
          params: ItemParams,
          consumes: ['multipart/form-data'],
          body: type === 'purchase_order' ? OrderUploadForm : UploadForm,
          response: { 201: ItemEnvelope(Attachment) },
        },
        handler: async (request, reply) => {
          const { actor, params } = request
          const upload = await add.receiveAttachment(request.db, config, actor, type, params.id, request)
          try {
            // Before the Idempotency-Key's transaction begins: an S3 upload records its intent on its own.
            const prepared = await add.prepareUpload(request.db, config, actor, type, upload)
            let used = false
            try {
              if (await claimStreamed(request, reply, add.fingerprintOf(upload))) return reply
              const stored = await add.storeAttachment(request.db, config, actor, type, params.id, upload, prepared)
              used = stored.used
              return reply
                .code(201)
                .header('location', `${request.linkBase}/api/v3/attachments/${stored.attachment.id}/`)
                .send({ metadata: {}, data: stored.attachment })
            } finally {
              // Inside the key's transaction (committed as the answer is sent) the release waits for the answer.
              const release = () => add.releaseUpload(db, config, prepared, used)
              if (!request.db.isTransaction) await release()
              else
                reply.raw.once('close', () => {
                  release().catch((error: unknown) => request.log.warn({ err: error }, 'releasing an upload failed'))
                })
            }
          } finally {
            await upload.discard()
          }
        },
      })
    }

    itemRoute(app, 'GET', '/v3/attachments/:id/', {
      summary: 'Get an attachment',
      operationId: 'getAttachment',
      tags,
      params: ItemParams,
      item: Attachment,
      run: ({ db, actor, params }) => service.getAttachment(db, actor, params.id),
    })
    deleteRoute(app, '/v3/attachments/:id/', {
      summary: 'Delete an attachment (its uploader while the document is a draft or awaiting approval, or a superuser)',
      operationId: 'deleteAttachment',
      tags,
      params: ItemParams,
      run: ({ db, actor, params, request }) => service.deleteAttachment(db, config, actor, params.id, request.log),
    })
    app.route({
      method: 'GET',
      url: '/v3/attachments/:id/content',
      schema: {
        summary: "Download an attachment's bytes (as an attachment, never rendered inline)",
        operationId: 'downloadAttachment',
        tags,
        params: ItemParams,
        headers: Type.Object({
          'if-none-match': Type.Optional(
            Type.String({
              description:
                'The ETag of a copy you hold (the quoted SHA-256): 304 without a body when it still matches.',
              examples: ['"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"'],
            }),
          ),
        }),
        response: {
          200: {
            description:
              'The stored bytes, as the type detected when the file was uploaded, with Content-Disposition: attachment, ' +
              'ETag (the quoted SHA-256), X-Content-Type-Options: nosniff and a sandboxing Content-Security-Policy.',
            content: Object.fromEntries(
              [...ALLOWED_TYPES].map((type) => [type, { schema: Type.String({ format: 'binary' }) }]),
            ),
          },
          304: {
            description: 'Not Modified: the ETag sent in If-None-Match is still current (no body).',
            type: 'null',
          },
        },
      },
      handler: async (request, reply) => {
        const { attachment, open } = await service.attachmentContent(
          request.db,
          config,
          request.actor,
          request.params.id,
        )
        return sendContent(request.headers['if-none-match'], reply, attachment, open)
      },
    })
  }

/**
 * The upload's validators: the body is never validated by schema (its schema is the form, for the OpenAPI
 * document; the multipart stream is read, limited and checked by upload.ts without being buffered), the
 * params and headers as on every route.
 */
const documentedBodyOnly: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route)

const UPLOAD_DESCRIPTION =
  'The file streams to the service (never held whole): at most ATTACHMENT_MAX_BYTES (413 beyond), its type ' +
  'detected from its content (415 naming a type that is not accepted), scanned when a virus scanner is set up ' +
  '(422 naming what it found, 503 when the scanner cannot answer), at most 50 per document (409). With ' +
  '`Idempotency-Key`, the same key with the same file (by SHA-256), name and fields replays the first 201; ' +
  'with another file or other fields, 422.'

const noun = (type: string) => type.replace(/_/g, ' ')
const pascal = (type: string) => type.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase())
