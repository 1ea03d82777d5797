/**
 * Invitations: a user created with `send_invitation_email: true` is marked pending_invite and gets an e-mail
 * with a one-time acceptance link. The mail is queued in the outbox in the same transaction as the user, so
 * neither exists without the other; the mailer (src/mail/) delivers it, retrying until it goes through.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { notFound } from '../http/problem.ts'
import * as repo from './repository.ts'

const VALID_DAYS = 14
const hashToken = (token: string) => createHash('sha256').update(token).digest()

export async function queueInvitations(
  db: Kysely<DB>,
  tenantId: number,
  invitees: { userId: number; email: string }[],
  origin: string,
): Promise<void> {
  if (invitees.length === 0) return
  const tenant = await repo.tenantName(db, tenantId)
  const expires = new Date(Date.now() + VALID_DAYS * 86400_000)
  const tokens = invitees.map(() => randomBytes(32).toString('base64url'))
  await repo.insertInvitations(
    db,
    invitees.map((i, k) => ({
      tenant_id: tenantId,
      user_id: i.userId,
      token_hash: hashToken(tokens[k]!),
      expires_at: expires,
    })),
  )
  await repo.queueEmails(
    db,
    invitees.map((i, k) => ({
      tenant_id: tenantId,
      to_address: i.email,
      subject: `You are invited to ${tenant} on the procurement service`,
      body_text:
        `You have been invited to join ${tenant}.\n\n` +
        `Accept the invitation within ${VALID_DAYS} days by opening this link:\n${origin}/invitations/${tokens[k]}/accept\n`,
    })),
  )
}

/** Accepts an invitation by its token: the user is no longer pending. Unknown, used or expired tokens are 404. */
export function acceptInvitation(db: Kysely<DB>, token: string): Promise<{ email: string }> {
  return inTransaction(db, async (tx) => {
    const invitation = await repo.markAccepted(tx, hashToken(token))
    if (invitation === undefined) throw notFound('This invitation link is unknown, already used or expired.')
    return { email: await repo.clearPendingInvite(tx, invitation.tenant_id, invitation.user_id) }
  })
}
