/**
 * /api/v3/{documents}/{id}/attachments/ and /api/v3/attachments/{id}/ (DECISIONS, "Attachments and comments"),
 * for every document registered in src/documents.ts. The upload reads its own multipart stream (upload.ts);
 * the download streams the stored bytes with headers that keep a browser from running them.
 */
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Config } from '../config.ts'
import { deleteRoute, itemRoute } from '../http/item-routes.ts'
import { ItemEnvelope, ListEnvelope } from '../http/list.ts'
import { attachables } from './documents.ts'
import { Attachment, ItemParams, UploadForm } from './schema.ts'
import * as service from './service.ts'
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

export const attachmentRoutes =
  (config: Readonly<Config>): FastifyPluginAsyncTypebox =>
  async (app) => {
    useStoreConfig(config)
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
          summary: `List a ${type.replace(/_/g, ' ')}'s attachments (an order's include its request's)`,
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
        config: { accessNeutral: true },
        schema: {
          summary: `Attach a file to a ${type.replace(/_/g, ' ')} (multipart/form-data: file, description${type === 'purchase_order' ? ', vendor_visible' : ''})`,
          operationId: `upload${pascal(type)}Attachment`,
          tags,
          params: ItemParams,
          consumes: ['multipart/form-data'],
          'x-multipart': UploadForm,
          response: { 201: ItemEnvelope(Attachment) },
        },
        handler: async (request, reply) => {
          const created = await service.uploadAttachment(
            request.db,
            config,
            request.actor,
            type,
            request.params.id,
            request,
          )
          return reply
            .code(201)
            .header('location', `${request.linkBase}/api/v3/attachments/${created.id}/`)
            .send({ metadata: {}, data: created })
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
      run: ({ db, actor, params }) => service.deleteAttachment(db, config, actor, params.id),
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
        produces: ['application/octet-stream'],
        response: { 200: Type.String({ format: 'binary' }), 304: Type.Null() },
      },
      handler: async (request, reply) => {
        const { attachment, open } = await service.attachmentContent(
          request.db,
          config,
          request.actor,
          request.params.id,
        )
        const etag = `"${attachment.sha256}"`
        reply
          .header('etag', etag)
          .header('cache-control', 'private, no-cache')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "sandbox; default-src 'none'")
        if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send(null)
        const stream = await open()
        return reply
          .header('content-type', attachment.content_type)
          .header('content-length', String(attachment.size))
          .header('content-disposition', contentDisposition(attachment.filename))
          .send(stream as never)
      },
    })
  }

const pascal = (type: string) => type.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase())
