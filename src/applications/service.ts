/**
 * Applications: client credentials owned by one user, acting with that user's permissions. The secret is
 * returned once, at creation or rotation, and never again. One set of operations serves every channel: a
 * user through the API or the console (with `superuser` or `nav_setting`), or the operator at the command
 * line; each runs in one transaction with its audit entry, which is written only when the operation succeeds.
 */
import type { Kysely } from 'kysely'
import { actingUser, requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { Page } from '../core/list-query.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { badRequest, forbidden, notFound } from '../core/problem.ts'
import { hashSecret, secretMatchesAny } from '../core/secrets.ts'
import { DUMMY_HASH, newClientId, newClientSecret } from './credentials.ts'
import { findUsersByEmail } from '../users/service.ts'
import * as repo from './repository.ts'
import type { Application, ApplicationListQuery } from './schema.ts'

export interface IssuedCredentials {
  client_id: string
  client_secret: string
}

const MANAGERS = ['superuser', 'nav_setting'] as const

const toApplication = (r: repo.ApplicationRow): Application => ({
  client_id: r.client_id,
  description: r.description,
  owner_email: r.email,
  created_at: r.created_at.toISOString(),
  last_used_at: r.last_used_at?.toISOString() ?? null,
  revoked_at: r.revoked_at?.toISOString() ?? null,
})

/**
 * Writes a new application with fresh credentials, without permission check or audit entry: for seed data
 * (the demo application) and test fixtures. Everything else goes through `createApplication`.
 */
export async function insertWithCredentials(
  db: Kysely<DB>,
  pepper: Buffer,
  owner: { tenantId: number; userId: number },
  description = '',
) {
  const client_secret = newClientSecret()
  const row = await repo.insertApplication(db, {
    tenant_id: owner.tenantId,
    user_id: owner.userId,
    client_id: newClientId(),
    secret_hash: hashSecret(pepper, client_secret),
    description,
  })
  return { id: row.id, client_id: row.client_id, client_secret, description: row.description }
}

/**
 * Creates an application owned by `ownerUserId` (default: the acting user — users create applications for
 * themselves; the operator names the owner).
 */
export function createApplication(
  db: Kysely<DB>,
  pepper: Buffer,
  actor: Actor,
  options: { description?: string; ownerUserId?: number },
): Promise<IssuedCredentials> {
  requireAny(actor, ...MANAGERS)
  const description = options.description ?? ''
  const owner = options.ownerUserId ?? actingUser(actor)
  return inTransaction(db, async (tx) => {
    const created = await insertWithCredentials(tx, pepper, { tenantId: actor.tenantId, userId: owner }, description)
    await audit(tx, actor, {
      action: 'application.create',
      resourceType: 'application',
      resourceId: created.client_id,
      changes: { description },
    })
    return { client_id: created.client_id, client_secret: created.client_secret }
  })
}

/**
 * Issues a new secret; the old one and its tokens stop working. Only an application's owner may rotate it
 * (the new secret acts as the owner, so handing it to anyone else would let them act with the owner's
 * permissions); the operator may rotate any.
 */
export function rotateApplication(
  db: Kysely<DB>,
  pepper: Buffer,
  actor: Actor,
  clientId: string,
): Promise<IssuedCredentials> {
  requireAny(actor, ...MANAGERS)
  return inTransaction(db, async (tx) => {
    const owner = await repo.ownerOf(tx, actor.tenantId, clientId)
    if (owner === undefined) throw notFound(`No active application ${clientId}.`)
    if (actor.userId !== null && owner.user_id !== actor.userId) {
      throw forbidden(
        'Only the owner of an application can rotate its secret; revoke it and let its owner create a new one.',
      )
    }
    const client_secret = newClientSecret()
    const row = await repo.setSecret(tx, actor.tenantId, clientId, hashSecret(pepper, client_secret))
    if (row === undefined) throw notFound(`No active application ${clientId}.`)
    await audit(tx, actor, { action: 'application.rotate', resourceType: 'application', resourceId: clientId })
    return { client_id: row.client_id, client_secret }
  })
}

/** Revokes an application; its tokens stop working. (Revoking grants nothing, so any manager may revoke any.) */
export function revokeApplication(db: Kysely<DB>, actor: Actor, clientId: string): Promise<void> {
  requireAny(actor, ...MANAGERS)
  return inTransaction(db, async (tx) => {
    if ((await repo.revokeApplication(tx, actor.tenantId, clientId)) === undefined)
      throw notFound(`No active application ${clientId}.`)
    await audit(tx, actor, { action: 'application.revoke', resourceType: 'application', resourceId: clientId })
  })
}

/**
 * The application these credentials name, if the secret is right under the current pepper or a previous one
 * (`matched` says which); undefined for an unknown client id and for a wrong secret alike, after the same
 * work (one lookup, one HMAC per pepper), so neither answer nor time tells them apart.
 */
export async function verifyClient(
  db: Kysely<DB>,
  pepper: Buffer,
  previousPeppers: readonly Buffer[],
  clientId: string,
  secret: string,
) {
  const app = await repo.findByClientId(db, clientId)
  const matched = secretMatchesAny(pepper, previousPeppers, secret, app?.secret_hash ?? DUMMY_HASH)
  return app !== undefined && matched !== undefined ? { ...app, matched } : undefined
}

/** A secret that matched under a previous pepper, hashed again under the current one (its tokens stay valid). */
export const rehashSecret = (
  db: Kysely<DB>,
  app: { id: number; secret_hash: Buffer },
  pepper: Buffer,
  secret: string,
) => repo.rehashSecret(db, app.id, app.secret_hash, hashSecret(pepper, secret))

/** Notes that an application was used (minute precision is enough: see the token endpoint). */
export const touchLastUsed = repo.touchLastUsed

/** The tenant an application belongs to (the operator's CLI names applications by client id alone). */
export const tenantOfApplication = repo.tenantOfApplication

/** The active user an operator names as an application's owner: by e-mail, in the one tenant that has it. */
export async function findOwner(db: Kysely<DB>, email: string, domain?: string) {
  const matches = await findUsersByEmail(db, email, domain)
  if (matches.length === 0) throw notFound(`No user ${email}${domain ? ` in domain ${domain}` : ''}.`)
  if (matches.length > 1) {
    throw badRequest(
      `${email} exists in several domains (${matches.map((m) => m.domain).join(', ')}); name one with --domain.`,
    )
  }
  const owner = matches[0]!
  if (!owner.is_active)
    throw badRequest(`${email} is deactivated; an application acts as its owner, so it needs an active one.`)
  return owner
}

/** One application of the tenant (never its secret). */
export async function getApplication(db: Kysely<DB>, actor: Actor, clientId: string): Promise<Application> {
  requireAny(actor, ...MANAGERS)
  const row = await repo.findApplication(db, actor.tenantId, clientId)
  if (row === undefined) throw notFound(`No application ${clientId}.`)
  return toApplication(row)
}

export async function listApplications(
  db: Kysely<DB>,
  actor: Actor,
  query: ApplicationListQuery,
): Promise<Page<Application>> {
  requireAny(actor, ...MANAGERS)
  const page = await repo.pageOfApplications(db, actor.tenantId, query)
  return { ...page, rows: page.rows.map(toApplication) }
}

/** Every application of the tenant, revoked ones included (the operator's list). */
export async function allApplications(db: Kysely<DB>, actor: Actor): Promise<Application[]> {
  requireAny(actor, ...MANAGERS)
  return (await repo.listApplications(db, actor.tenantId)).map(toApplication)
}

/**
 * A tenant is deactivated: every access token issued to its applications until now stays dead, even once
 * the tenant is active again (tokens carry the secret version they were issued under).
 */
export async function retireTenantTokens(db: Kysely<DB>, tenantId: number): Promise<void> {
  await repo.retireTenantTokens(db, tenantId)
}
