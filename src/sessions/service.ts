/**
 * Console sign-in and sessions. A session is a server-side row named by the SHA-256 of a 256-bit random
 * token (the cookie holds the token), so it can be listed and revoked, and it ends at once when its user or
 * tenant is deactivated. It lapses after SESSION_IDLE_MINUTES without use and SESSION_MAX_HOURS after
 * sign-in, whichever comes first.
 *
 * Sign-in does the same work whether the e-mail is known or not (one look-up, one scrypt), and answers the
 * same; where the tenant's single sign-on policy turns passwords off for the person, it answers the same
 * whatever the password, which it never checks. Failures are braked per address and per account like the
 * token endpoint: only failures count, so the right password always gets in.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { AttemptCounter } from '../access/attempts.ts'
import type { Actor } from '../access/actor.ts'
import { verifyPassword } from '../core/passwords.ts'
import { emailKey } from '../db/email.ts'
import type { DB } from '../db/schema.ts'
import { hostAllows, type HostTenant } from '../http/host.ts'
import * as repo from './repository.ts'

export interface SessionLimits {
  idleMinutes: number
  maxHours: number
}

export const hashSessionToken = (token: string) => createHash('sha256').update(token).digest()

/** Starts a session for a user; returns the token for the cookie. */
export async function startSession(
  db: Kysely<DB>,
  user: { tenantId: number; userId: number },
  limits: SessionLimits,
  client: { userAgent: string; address: string },
): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  await repo.insertSession(db, {
    tenant_id: user.tenantId,
    user_id: user.userId,
    token_hash: hashSessionToken(token),
    expires_at: new Date(Date.now() + limits.maxHours * 3600_000),
    user_agent: client.userAgent.slice(0, 200),
    address: client.address.slice(0, 64),
  })
  return token
}

/** A failed sign-in; `failure` is what the tenant's password policy says instead of "not right". */
export type SignInResult = { ok: true; token: string } | { ok: false; waitSeconds: number; failure?: string }

/** What the tenant's single sign-on policy says of password sign-in for one person (sso/signin.service.ts). */
export interface PasswordRule {
  /** Password sign-in is off for this person: their password is never checked. */
  off: boolean
  /** What every failed sign-in under the policy says, whatever failed. */
  failure?: string
}

/**
 * The rule for the account an e-mail names on this host (`undefined`: none), by the policy of its tenant or,
 * for no account, of the host's.
 */
export type PasswordPolicy = (account: { tenantId: number; superuser: boolean } | undefined) => Promise<PasswordRule>

export async function signIn(
  db: Kysely<DB>,
  attempts: AttemptCounter,
  limits: SessionLimits,
  request: {
    host: HostTenant
    email: string
    password: string
    address: string
    userAgent: string
    policy?: PasswordPolicy
  },
): Promise<SignInResult> {
  const domain = request.host.mode === 'multi' ? (request.host.domain ?? '') : undefined
  const candidates = await repo.usersForSignIn(db, request.email, domain)
  // Exactly one account may match; two (the same e-mail in two tenants on a single-tenant host) is no match.
  const found = candidates.length === 1 ? candidates[0] : undefined
  const user = found !== undefined && hostAllows(request.host, found.domain) ? found : undefined
  const rule = (await request.policy?.(
    user === undefined ? undefined : { tenantId: user.tenant_id, superuser: user.superuser },
  )) ?? { off: false }
  // Where passwords are off for this person the password is not checked: the same hash is worked against
  // nothing, so the answer (and its time) is the same whatever was typed, and whether the account exists.
  const matches = await verifyPassword(request.password, rule.off ? undefined : user?.password_hash)
  if (!rule.off && user !== undefined && matches && user.is_active && user.tenant_active) {
    const token = await startSession(db, { tenantId: user.tenant_id, userId: user.id }, limits, request)
    return { ok: true, token }
  }
  const account = `${emailKey(request.email)}@${domain ?? ''}`
  const waitSeconds = await attempts.failed(account, request.address)
  return { ok: false, waitSeconds, ...(rule.failure === undefined ? {} : { failure: rule.failure }) }
}

export interface LiveSession {
  id: number
  actor: Actor
}

/** The actor of a live session on this host, or undefined (unknown, ended, lapsed, or another tenant's). */
export async function resumeSession(
  db: Kysely<DB>,
  token: string,
  limits: SessionLimits,
  host: HostTenant,
  requestId: string,
): Promise<LiveSession | undefined> {
  const row = await repo.findLive(db, hashSessionToken(token), limits.idleMinutes * 60)
  if (row === undefined || !hostAllows(host, row.domain)) return undefined
  // last_seen_at is for the idle limit; minute precision spares a write per page.
  if (Date.now() - row.last_seen_at.getTime() > 60_000) await repo.touch(db, row.tenant_id, row.id)
  return {
    id: row.id,
    actor: {
      tenantId: row.tenant_id,
      domain: row.domain,
      userId: row.user_id,
      email: row.email,
      applicationId: null,
      clientId: null,
      permissions: new Set(row.permissions),
      channel: 'console',
      requestId,
    },
  }
}

export const endSession = (db: Kysely<DB>, token: string) => repo.revokeByToken(db, hashSessionToken(token))

/** The acting user's live sessions, and revoking one of them. */
export const mySessions = (db: Kysely<DB>, actor: Actor) => repo.listOfUser(db, actor.tenantId, actor.userId ?? 0)
export const revokeMySession = (db: Kysely<DB>, actor: Actor, id: number) =>
  repo.revokeOfUser(db, actor.tenantId, actor.userId ?? 0, id)

/** Ends every session of a user (deactivation, a password reset). */
export const endUserSessions = (db: Kysely<DB>, tenantId: number, userId: number) =>
  repo.revokeOfUser(db, tenantId, userId)

/** Ends every session of a tenant (its deactivation: they stay ended when it is active again). */
export const endTenantSessions = async (db: Kysely<DB>, tenantId: number) => {
  await repo.revokeOfTenant(db, tenantId)
}
