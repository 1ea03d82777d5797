/**
 * Attachments and comments in the console (DECISIONS, "Attachments and comments"), for the seven document
 * pages: the box and thread each page shows (`documentBoxesFor`), and the forms they post — upload (a plain
 * multipart form, its CSRF token its first part: console/multipart.ts), delete an attachment, add and delete
 * a comment — and the download, with the API's headers (an attachment, nosniff, a sandboxing CSP, the SHA-256
 * as ETag). Every rule is the attachment and comment services' own; a refusal (400, 403, 409, 413, 415, 422)
 * is said on a page that links back to the document, a comment's text kept; after a change the document's
 * page follows (303) with a sentence saying what happened.
 */
import { Type } from 'typebox'
import type { AttachableType } from '../../attachments/documents.ts'
import { uploadAttachment } from '../../attachments/add.ts'
import { sendContent } from '../../attachments/routes.ts'
import {
  attachmentContent,
  deleteAttachment,
  documentFor,
  getAttachment,
  listAttachments,
} from '../../attachments/service.ts'
import { CommentInput } from '../../attachments/schema.ts'
import { createComment, deleteComment, DELETE_WINDOW_MS, listComments } from '../../comments/service.ts'
import { notFound, Problem, validationFailed } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { forwarded } from '../multipart.ts'
import { attachmentProblemView, documentBoxes } from '../views/attachments.ts'
import type { Html } from '../views/html.ts'

const Int = Type.Integer({ minimum: 1, maximum: 2147483647 })
const Id = Type.Object({ id: Int })
const AttachmentOf = Type.Object({ id: Int, attachment: Int })
const CommentOf = Type.Object({ id: Int, comment: Int })
const CommentForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  body: Type.Optional(Type.String({ maxLength: 20_000 })),
})
const DeleteForm = Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) })

/** Each document's console page (its base path) and how a sentence names it. */
export const DOCUMENT_PAGES: Readonly<Record<AttachableType, { base: string; noun: string }>> = {
  request: { base: '/console/requests', noun: 'this request' },
  purchase_order: { base: '/console/orders', noun: 'this order' },
  receipt: { base: '/console/receipts', noun: 'this receipt' },
  bill: { base: '/console/bills', noun: 'this bill' },
  expense_report: { base: '/console/expenses', noun: 'this expense report' },
  travel_request: { base: '/console/travel', noun: 'this travel request' },
  payment_request: { base: '/console/payment-requests', noun: 'this payment request' },
}

const sameEmail = (a: string | undefined, b: string | null) =>
  a !== undefined && b !== null && a.toLowerCase() === b.toLowerCase()

/** The Attachments box and Comments thread of document `type` `id` (the page has read it: the user sees it). */
export async function documentBoxesFor(
  deps: ConsoleDeps,
  session: ConsoleSession,
  type: AttachableType,
  id: number,
): Promise<Html> {
  const { db } = deps
  const { actor } = session
  const [doc, attachments, comments] = await Promise.all([
    documentFor(db, actor, type, id),
    listAttachments(db, actor, type, id),
    listComments(db, actor, type, id),
  ])
  const superuser = actor.permissions.has('superuser')
  const own = (a: (typeof attachments)[number]) => a.document.type === type && a.document.id === id
  const now = Date.now()
  return documentBoxes(
    {
      type,
      id,
      path: `${DOCUMENT_PAGES[type].base}/${id}`,
      noun: DOCUMENT_PAGES[type].noun,
      attachments,
      comments,
      canAct: doc.can_act,
      deletableAttachments: new Set(
        attachments
          .filter(
            (a) => own(a) && (superuser || (doc.uploader_may_delete && sameEmail(a.uploaded_by?.email, actor.email))),
          )
          .map((a) => a.id),
      ),
      deletableComments: new Set(
        comments
          .filter(
            (c) =>
              superuser ||
              (sameEmail(c.author?.email, actor.email) && now - Date.parse(c.created_at) <= DELETE_WINDOW_MS),
          )
          .map((c) => c.id),
      ),
      maxBytes: deps.config.ATTACHMENT_MAX_BYTES,
    },
    session,
  )
}

/** What the console says of a refusal on its own page; anything else (404, 5xx) goes to the error page. */
const SAID = new Set([400, 403, 409, 413, 415, 422])

export function attachmentPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db, config } = deps
  const checkComment = bodyChecker(CommentInput)

  /** Runs `write`; a refusal is a page naming what to do, with a link back (and the comment typed). */
  async function act(
    session: ConsoleSession,
    type: AttachableType,
    id: number,
    title: string,
    write: () => Promise<unknown>,
    comment?: string,
  ) {
    try {
      await write()
      return undefined
    } catch (error) {
      if (!(error instanceof Problem) || !SAID.has(error.status)) throw error
      const doc = await documentFor(db, session.actor, type, id)
      const back = { path: `${DOCUMENT_PAGES[type].base}/${id}`, label: doc.label, comment }
      return { status: error.status, page: attachmentProblemView(title, error.detail, back, session) }
    }
  }

  for (const [type, { base }] of Object.entries(DOCUMENT_PAGES) as [AttachableType, { base: string }][]) {
    const route = base.replace(/^\/console/, '')
    const done = (id: number, what: string) => `${base}/${id}?done=${what}`

    app.post(
      `${route}/:id/attachments`,
      { config: { multipartForm: true }, schema: { hide: true, params: Id } },
      async (request, reply) => {
        const { id } = request.params
        const refused = await act(request.session, type, id, 'The file was not attached', () =>
          uploadAttachment(db, config, request.session.actor, type, id, forwarded(request)),
        )
        if (refused !== undefined) return sendPage(reply, refused.page, refused.status)
        return reply.redirect(done(id, 'attached'), 303)
      },
    )

    app.post(
      `${route}/:id/attachments/:attachment/delete`,
      { schema: { hide: true, params: AttachmentOf, body: DeleteForm } },
      async (request, reply) => {
        const { id, attachment } = request.params
        const { actor } = request.session
        const a = await getAttachment(db, actor, attachment)
        if (a.document.type !== type || a.document.id !== id) throw notFound(`No attachment ${attachment} here.`)
        const refused = await act(request.session, type, id, 'The file was not deleted', () =>
          deleteAttachment(db, config, actor, attachment),
        )
        if (refused !== undefined) return sendPage(reply, refused.page, refused.status)
        return reply.redirect(done(id, 'detached'), 303)
      },
    )

    app.post(
      `${route}/:id/comments`,
      { schema: { hide: true, params: Id, body: CommentForm } },
      async (request, reply) => {
        const { id } = request.params
        const { actor } = request.session
        const body = request.body.body ?? ''
        const refused = await act(
          request.session,
          type,
          id,
          'The comment was not added',
          async () => {
            const checked = checkComment({ body })
            if (!checked.ok)
              throw validationFailed(
                checked.errors,
                body.trim() === ''
                  ? 'Write something in the comment.'
                  : 'The comment is too long; keep it to 5,000 characters.',
              )
            return createComment(db, actor, type, id, body, mailBaseOf(deps, actor.domain))
          },
          body,
        )
        if (refused !== undefined) return sendPage(reply, refused.page, refused.status)
        return reply.redirect(done(id, 'commented'), 303)
      },
    )

    app.post(
      `${route}/:id/comments/:comment/delete`,
      { schema: { hide: true, params: CommentOf, body: DeleteForm } },
      async (request, reply) => {
        const { id, comment } = request.params
        const { actor } = request.session
        if (!(await listComments(db, actor, type, id)).some((c) => c.id === comment))
          throw notFound(`No comment ${comment} here.`)
        const refused = await act(request.session, type, id, 'The comment was not deleted', () =>
          deleteComment(db, actor, comment),
        )
        if (refused !== undefined) return sendPage(reply, refused.page, refused.status)
        return reply.redirect(done(id, 'uncommented'), 303)
      },
    )
  }

  // The download: as the API's (attachments/routes.ts), read through the session.
  app.get('/attachments/:id', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const { attachment, open } = await attachmentContent(db, config, request.session.actor, request.params.id)
    return sendContent(request.headers['if-none-match'], reply, attachment, open)
  })
}
