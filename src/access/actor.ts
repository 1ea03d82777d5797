/**
 * Who is acting: a user through an application's token (the API), a signed-in user (the console), or the
 * operator at the command line. Services take an actor, check its permissions here, and record it with
 * every write (audit log), so each rule is written once for every channel.
 */
import { PERMISSION_KEYS, type PermissionKey } from '../db/schema.ts'
import { forbidden } from '../core/problem.ts'

export type Channel = 'api' | 'console' | 'cli' | 'sso' | 'scim'

export interface Actor {
  tenantId: number
  /** The tenant's domain (`acme`). */
  domain: string
  /** The acting user; null for the operator, who acts through the database and has no user. */
  userId: number | null
  email: string | null
  /** The application whose token was used (API only). */
  applicationId: number | null
  clientId: string | null
  /** Permission keys held right now; the operator holds every key. */
  permissions: ReadonlySet<PermissionKey>
  channel: Channel
  /** The request's id, recorded with every write it makes (audit log); null outside HTTP. */
  requestId: string | null
}

/** The operator acting on one tenant from the command line. */
export const operatorActor = (tenant: { id: number; domain: string }): Actor => ({
  tenantId: tenant.id,
  domain: tenant.domain,
  userId: null,
  email: null,
  applicationId: null,
  clientId: null,
  permissions: new Set(PERMISSION_KEYS),
  channel: 'cli',
  requestId: null,
})

/** Throws 403 unless the actor holds at least one of `keys`. */
export function requireAny(actor: Actor, ...keys: PermissionKey[]): void {
  if (!keys.some((key) => actor.permissions.has(key))) {
    throw forbidden(`This action needs the ${keys.join(' or ')} permission.`)
  }
}

/** The acting user's id; a 403 for the operator where an action needs a person (e.g. "my account"). */
export function actingUser(actor: Actor): number {
  if (actor.userId === null) throw forbidden('This action is taken by a user, not by the operator.')
  return actor.userId
}

/**
 * The tenant's identity provider acting (single sign-on, SCIM): for the tenant's owner, so containment does
 * not apply, but every rule on e-mails and names does, and every write is audited `via` its channel.
 */
export const providerActor = (
  tenant: { id: number; domain: string },
  channel: 'sso' | 'scim',
  requestId: string | null,
): Actor => ({
  ...operatorActor(tenant),
  channel,
  requestId,
})
