/**
 * One-time links that let a person set their console password: the invitation a new user is e-mailed
 * (14 days), the first administrator's set-up link (24 hours) and a reset link (24 hours). Each is bound to
 * its tenant (used on another tenant's host it is unknown) and its purpose (only an invitation may be
 * accepted without a password), works once, and only for an active user. Each opens the
 * set-password page `/console/setup/<token>`; opening it (GET) changes nothing — a mail scanner that
 * prefetches the link accepts nothing — and only submitting a password uses it up. Tokens are 256 random
 * bits, stored as SHA-256 hashes. An invitation's e-mail is queued in the outbox in the same transaction as
 * the user, so neither exists without the other; the mailer (src/mail/) delivers it.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { DB, LinkPurpose } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { notFound } from '../core/problem.ts'
import { hostAllows, type HostTenant } from '../http/host.ts'
import { endUserSessions } from '../sessions/service.ts'
import * as repo from './repository.ts'

const INVITATION_DAYS = 14
const SETUP_HOURS = 24
const hashToken = (token: string) => createHash('sha256').update(token).digest()

/** The path of a set-password link. */
export const setupPath = (token: string) => `/console/setup/${token}`

/** A new one-time link for a user (earlier open links of the same purpose stop working); returns its token. */
export async function issueLink(
  db: Kysely<DB>,
  tenantId: number,
  userId: number,
  purpose: Exclude<LinkPurpose, 'invitation'>,
) {
  const token = randomBytes(32).toString('base64url')
  await repo.closeOpenLinks(db, tenantId, userId, purpose)
  const expires_at = new Date(Date.now() + SETUP_HOURS * 3600_000)
  await repo.insertLinks(db, [
    { tenant_id: tenantId, user_id: userId, token_hash: hashToken(token), expires_at, purpose },
  ])
  return token
}

/** Queues an invitation e-mail for each invitee; `base` is the absolute address links start with. */
export async function queueInvitations(
  db: Kysely<DB>,
  tenantId: number,
  invitees: { userId: number; email: string }[],
  base: string,
): Promise<void> {
  if (invitees.length === 0) return
  const tenant = await repo.tenantName(db, tenantId)
  const expires_at = new Date(Date.now() + INVITATION_DAYS * 86400_000)
  const tokens = invitees.map(() => randomBytes(32).toString('base64url'))
  await repo.insertLinks(
    db,
    invitees.map((i, k) => ({
      tenant_id: tenantId,
      user_id: i.userId,
      token_hash: hashToken(tokens[k]!),
      expires_at,
      purpose: 'invitation' as const,
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
        `Within ${INVITATION_DAYS} days, open this link and choose a password to accept the invitation:\n` +
        `${base}${setupPath(tokens[k]!)}\n`,
    })),
  )
}

/**
 * Sends an invited user a fresh invitation: their earlier open invitation links stop working, and a new one
 * goes out in a new e-mail (queued in the outbox like the first).
 */
export async function reissueInvitation(
  db: Kysely<DB>,
  tenantId: number,
  invitee: { userId: number; email: string },
  base: string,
): Promise<void> {
  await repo.closeOpenLinks(db, tenantId, invitee.userId, 'invitation')
  await queueInvitations(db, tenantId, [invitee], base)
}

/**
 * A new set-password link for an active user, e-mailed to them (queued in the outbox): earlier open reset
 * links stop working; the link works once, within 24 hours.
 */
export async function queueSetPasswordLink(
  db: Kysely<DB>,
  tenantId: number,
  user: { userId: number; email: string },
  base: string,
): Promise<void> {
  const token = await issueLink(db, tenantId, user.userId, 'reset')
  const tenant = await repo.tenantName(db, tenantId)
  await repo.queueEmails(db, [
    {
      tenant_id: tenantId,
      to_address: user.email,
      subject: `Choose a new password for ${tenant} on the procurement service`,
      body_text:
        `An administrator of ${tenant} has sent you a link to choose a new password.\n\n` +
        `Within ${SETUP_HOURS} hours, open this link and choose a password:\n` +
        `${base}${setupPath(token)}\n\n` +
        'If you did not expect this, tell your administrator; your current password keeps working until the link is used.\n',
    },
  ])
}

/** What an open link is for and whose it is; undefined when it is unknown, used or expired. Changes nothing. */
export async function openLink(db: Kysely<DB>, token: string) {
  const link = await repo.findOpen(db, hashToken(token))
  return link !== undefined && link.is_active && link.tenant_active ? link : undefined
}

/** Where a link is being used, and what for: its host must name the link's tenant and its purpose be one of these. */
export interface LinkUse {
  host: HostTenant
  purposes: readonly LinkPurpose[]
  /** With a hash the user signs in with this password from now on, and every session they had ends. */
  passwordHash?: string
}

/**
 * Uses a link once: the user accepts (is no longer pending) and, with a password hash, has that password and
 * is signed out everywhere. A link that is unknown, used, expired, of another tenant than the host names,
 * of another purpose, or of a deactivated user or tenant is 404, and nothing changes.
 */
export function useLink(db: Kysely<DB>, token: string, use: LinkUse) {
  return inTransaction(db, async (tx) => {
    const hash = hashToken(token)
    const open = await repo.findOpen(tx, hash)
    const usable =
      open !== undefined &&
      open.is_active &&
      open.tenant_active &&
      use.purposes.includes(open.purpose) &&
      hostAllows(use.host, open.domain)
    const link = usable ? await repo.markUsed(tx, hash) : undefined
    if (link === undefined) throw notFound('This link is unknown, already used or expired.')
    const email = await repo.acceptUser(tx, link.tenant_id, link.user_id, use.passwordHash)
    if (use.passwordHash !== undefined) await endUserSessions(tx, link.tenant_id, link.user_id)
    return { email, tenantId: link.tenant_id, userId: link.user_id }
  })
}
