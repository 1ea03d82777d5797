/**
 * Comments on documents (DECISIONS, "Attachments and comments"): whoever sees the document reads its thread;
 * adding needs the right to act on it. `@` followed by a user's e-mail mentions them: a mentioned user who
 * can see the document is told by e-mail with a link to its console page (queued in the outbox with the
 * comment, like every notification); one who cannot is refused, 400 naming them. A comment is deleted by its
 * author within 15 minutes, or by a superuser.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { queueMail } from '../mail/service.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import { attachableOf, type AttachableType } from '../attachments/documents.ts'
import type { CommentView } from '../attachments/schema.ts'
import { documentFor, requireAct } from '../attachments/service.ts'
import { audit } from '../audit/service.ts'
import { forbidden, notFound, validationFailed } from '../core/problem.ts'
import { emailKey } from '../db/email.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import * as repo from './repository.ts'

export const DELETE_WINDOW_MS = 15 * 60 * 1000

const toComment = (row: repo.CommentRow): CommentView => ({
  id: row.id,
  document: { type: row.document_type, id: row.document_id },
  author: row.author ?? null,
  body: row.body,
  mentions: row.mentions,
  created_at: new Date(row.created_at).toISOString(),
})

export async function listComments(db: Kysely<DB>, actor: Actor, type: AttachableType, id: number) {
  await documentFor(db, actor, type, id)
  return (await repo.commentsOf(db, actor.tenantId, type, id)).map(toComment)
}

/** The addresses `@`-mentioned in `body`: `@` then an address, trailing punctuation not part of it. */
export function mentionsIn(body: string): string[] {
  const found = new Map<string, string>()
  for (const match of body.matchAll(/(?<![\w.+-])@([^\s@<>()[\]{},;:"']+@[^\s@<>()[\]{},;:"']+)/g)) {
    const email = match[1]!.replace(/[.!?]+$/, '')
    if (/^[^@]+@[^@]+\.[^@]+$/.test(email)) found.set(emailKey(email), email)
  }
  return [...found.values()]
}

// eslint-disable-next-line no-control-regex -- control characters other than tab and line breaks are refused
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

export async function createComment(
  db: Kysely<DB>,
  actor: Actor,
  type: AttachableType,
  id: number,
  body: string,
  mailBase: MailBase,
): Promise<CommentView> {
  if (body.trim() === '') throw validationFailed({ body: ['must not be blank'] }, 'Write something in the comment.')
  if (CONTROL.test(body))
    throw validationFailed(
      { body: ['must be plain text without control characters'] },
      'Remove the control characters from the comment.',
    )
  return inTransaction(db, async (tx) => {
    const doc = await documentFor(tx, actor, type, id)
    requireAct(doc, type, 'comments')
    const emails = mentionsIn(body)
    const users = await repo.usersByEmail(tx, actor.tenantId, emails)
    const known = new Set(users.map((u) => emailKey(u.email)))
    const unknown = emails.filter((e) => !known.has(emailKey(e)))
    if (unknown.length > 0)
      throw validationFailed(
        { body: unknown.map((e) => `@${e} is not a user of this tenant`) },
        `No active user has the e-mail ${unknown.join(', ')}; correct the mention or remove the @.`,
      )
    const attachable = attachableOf(type)!
    const blind: string[] = []
    for (const user of users) {
      const seen = await attachable.load(tx, mentionedActor(actor, user), id)
      if (seen === null) blind.push(user.email)
    }
    if (blind.length > 0)
      throw validationFailed(
        { body: blind.map((e) => `@${e} cannot see this document`) },
        `${blind.join(', ')} cannot see this document, so they cannot be mentioned; remove the mention or ask an administrator to give them access.`,
      )
    const commentId = await repo.insertComment(
      tx,
      actor.tenantId,
      type,
      id,
      actor.userId,
      body,
      users.map((u) => u.id),
    )
    const comment = toComment((await repo.findComment(tx, actor.tenantId, commentId))!)
    await audit(tx, actor, {
      action: 'comment.create',
      resourceType: 'comment',
      resourceId: commentId,
      changes: { document: comment.document },
    })
    await recordEvent(tx, actor.tenantId, 'comment.created', comment)
    if (mailBase !== undefined) {
      const author = actor.email ?? 'Someone'
      const to = users.filter((u) => u.id !== actor.userId).map((u) => u.email)
      if (to.length > 0)
        await queueMail(tx, actor.tenantId, to, {
          subject: `You were mentioned on ${doc.label}`,
          text: `${author} mentioned you in a comment on ${doc.label}:\n\n${body}\n\nSee it and reply: ${mailBase}${doc.console_path}`,
        })
    }
    return comment
  })
}

const mentionedActor = (actor: Actor, user: { id: number; email: string; permissions: string[] }): Actor => ({
  ...actor,
  userId: user.id,
  email: user.email,
  applicationId: null,
  clientId: null,
  permissions: new Set(user.permissions) as Actor['permissions'],
})

export async function deleteComment(db: Kysely<DB>, actor: Actor, id: number) {
  await inTransaction(db, async (tx) => {
    const row = await repo.findComment(tx, actor.tenantId, id)
    if (row === undefined) throw notFound(`No comment ${id}.`)
    await documentFor(tx, actor, row.document_type, row.document_id).catch(() => {
      throw notFound(`No comment ${id}.`)
    })
    const fresh = Date.now() - new Date(row.created_at).getTime() <= DELETE_WINDOW_MS
    const author = row.author_id !== null && row.author_id === actor.userId
    if (!actor.permissions.has('superuser') && !(author && fresh))
      throw forbidden(
        author
          ? 'A comment can be deleted by its author within 15 minutes of writing it; after that, ask a superuser.'
          : 'A comment is deleted by its author (within 15 minutes) or by a superuser.',
      )
    await repo.deleteComment(tx, actor.tenantId, id)
    await audit(tx, actor, { action: 'comment.delete', resourceType: 'comment', resourceId: id })
    await recordEvent(tx, actor.tenantId, 'comment.deleted', toComment(row))
  })
}
