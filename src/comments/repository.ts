/** SQL for comments and their mentions. */
import { sql, type Kysely } from 'kysely'
import { permissionsOfUser } from '../access/permissions.ts'
import type { AttachableType } from '../attachments/documents.ts'
import type { PersonJson } from '../db/joins.ts'
import { personJson } from '../db/joins.ts'
import { emailIn } from '../db/email.ts'
import type { DB } from '../db/schema.ts'
import '../attachments/tables.ts'

const selectComments = (db: Kysely<DB>) =>
  db.selectFrom('comments as c').select([
    'c.id',
    'c.document_type',
    'c.document_id',
    'c.author_id',
    'c.body',
    'c.created_at',
    personJson(sql.ref('c.author_id'), sql.ref('c.tenant_id')).as('author'),
    sql<PersonJson[]>`coalesce((select json_agg(${personJson(sql.ref('m.user_id'), sql.ref('m.tenant_id'))}
        order by m.user_id) from comment_mentions m where m.tenant_id = c.tenant_id and m.comment_id = c.id),
        '[]'::json)`.as('mentions'),
  ])

export type CommentRow = Awaited<ReturnType<ReturnType<typeof selectComments>['executeTakeFirstOrThrow']>>

export const commentsOf = (db: Kysely<DB>, tenantId: number, type: AttachableType, id: number) =>
  selectComments(db)
    .where('c.tenant_id', '=', tenantId)
    .where('c.document_type', '=', type)
    .where('c.document_id', '=', id)
    .orderBy('c.created_at')
    .orderBy('c.id')
    .execute()

export const findComment = (db: Kysely<DB>, tenantId: number, id: number) =>
  selectComments(db).where('c.tenant_id', '=', tenantId).where('c.id', '=', id).executeTakeFirst()

/** The tenant's active users with these e-mail addresses, with what they may do (to judge what they see). */
export function usersByEmail(db: Kysely<DB>, tenantId: number, emails: readonly string[]) {
  if (emails.length === 0) return Promise.resolve([])
  return db
    .selectFrom('users as u')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .select(['u.id', 'u.email', 't.domain', permissionsOfUser.as('permissions')])
    .where('u.tenant_id', '=', tenantId)
    .where('u.is_active', '=', true)
    .where(emailIn('u.email', emails))
    .execute()
}

export async function insertComment(
  db: Kysely<DB>,
  tenantId: number,
  type: AttachableType,
  id: number,
  authorId: number | null,
  body: string,
  mentioned: readonly number[],
) {
  const row = await db
    .insertInto('comments')
    .values({ tenant_id: tenantId, document_type: type, document_id: id, author_id: authorId, body })
    .returning('id')
    .executeTakeFirstOrThrow()
  if (mentioned.length > 0)
    await db
      .insertInto('comment_mentions')
      .values(mentioned.map((user_id) => ({ tenant_id: tenantId, comment_id: row.id, user_id })))
      .execute()
  return row.id
}

export const deleteComment = (db: Kysely<DB>, tenantId: number, id: number) =>
  db.deleteFrom('comments').where('tenant_id', '=', tenantId).where('id', '=', id).execute()
