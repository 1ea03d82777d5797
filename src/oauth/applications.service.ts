/**
 * Applications: client credentials owned by one user, acting with that user's permissions. The secret is
 * returned once, at creation or rotation, and never again.
 */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { FastifyRequest } from 'fastify'
import { audit } from '../audit/service.ts'
import { listEnvelope, pageRequest } from '../http/list.ts'
import type { Caller } from '../http/auth.ts'
import { badRequest, forbidden, notFound } from '../http/problem.ts'
import * as repo from './applications.repository.ts'
import { hashSecret, newClientId, newClientSecret } from './secrets.ts'

export interface IssuedCredentials {
  client_id: string
  client_secret: string
}

export async function createApplication(
  db: Kysely<DB>,
  pepper: Buffer,
  owner: { tenantId: number; userId: number },
  description = '',
): Promise<IssuedCredentials & { id: number; description: string; created_at: Date }> {
  const client_secret = newClientSecret()
  const row = await repo.insertApplication(db, {
    tenant_id: owner.tenantId,
    user_id: owner.userId,
    client_id: newClientId(),
    secret_hash: hashSecret(pepper, client_secret),
    description,
  })
  return { id: row.id, client_id: row.client_id, client_secret, description: row.description, created_at: row.created_at }
}

/** Finds the active user that will own an application made by the operator (CLI). */
export async function findOwner(db: Kysely<DB>, email: string, domain?: string) {
  let query = db
    .selectFrom('users as u')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .select(['u.id as userId', 'u.tenant_id as tenantId', 't.domain', 'u.is_active'])
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
  if (domain !== undefined) query = query.where('t.domain', '=', domain)
  const matches = await query.execute()
  if (matches.length === 0) throw notFound(`No user ${email}${domain ? ` in domain ${domain}` : ''}.`)
  if (matches.length > 1) {
    throw badRequest(`${email} exists in several domains (${matches.map((m) => m.domain).join(', ')}); name one with --domain.`)
  }
  const owner = matches[0]!
  if (!owner.is_active) throw badRequest(`${email} is deactivated; an application acts as its owner, so it needs an active one.`)
  return owner
}

export async function rotateSecret(db: Kysely<DB>, pepper: Buffer, tenantId: number, clientId: string): Promise<IssuedCredentials> {
  const client_secret = newClientSecret()
  const row = await repo.setSecret(db, tenantId, clientId, hashSecret(pepper, client_secret))
  if (row === undefined) throw notFound(`No active application ${clientId}.`)
  return { client_id: row.client_id, client_secret }
}

export async function revoke(db: Kysely<DB>, tenantId: number, clientId: string): Promise<void> {
  const row = await repo.revokeApplication(db, tenantId, clientId)
  if (row === undefined) throw notFound(`No active application ${clientId}.`)
}

export const list = repo.listApplications

export async function listPage(db: Kysely<DB>, caller: Caller, query: { page?: number; page_size?: number; order_by?: string }, request: FastifyRequest) {
  const page = pageRequest(query)
  const { rows, count } = await repo.pageOfApplications(db, caller.tenantId, page)
  return listEnvelope(
    request,
    page,
    count,
    rows.map((r) => ({
      client_id: r.client_id,
      description: r.description,
      owner_email: r.email,
      created_at: r.created_at.toISOString(),
      last_used_at: r.last_used_at?.toISOString() ?? null,
      revoked_at: r.revoked_at?.toISOString() ?? null,
    })),
  )
}

/** The API's operations: the same, in one transaction with their audit record. */
export const createFor = (db: Kysely<DB>, pepper: Buffer, caller: Caller, description: string) =>
  db.transaction().execute(async (tx) => {
    const created = await createApplication(tx, pepper, { tenantId: caller.tenantId, userId: caller.userId }, description)
    await audit(tx, caller, { action: 'application.create', resourceType: 'application', resourceId: created.client_id, changes: { description } })
    return created
  })

/**
 * Only an application's owner may rotate its secret through the API: the new secret acts as the owner, so
 * handing it to anyone else would let them act with the owner's permissions. (Revoking grants nothing, so
 * any settings user may revoke any application of the tenant.)
 */
export const rotateFor = (db: Kysely<DB>, pepper: Buffer, caller: Caller, clientId: string) =>
  db.transaction().execute(async (tx) => {
    const owner = await repo.ownerOf(tx, caller.tenantId, clientId)
    if (owner === undefined) throw notFound(`No active application ${clientId}.`)
    if (owner.user_id !== caller.userId) throw forbidden('Only the owner of an application can rotate its secret; revoke it and let its owner create a new one.')
    const creds = await rotateSecret(tx, pepper, caller.tenantId, clientId)
    await audit(tx, caller, { action: 'application.rotate', resourceType: 'application', resourceId: clientId })
    return creds
  })

export const revokeFor = (db: Kysely<DB>, caller: Caller, clientId: string) =>
  db.transaction().execute(async (tx) => {
    await revoke(tx, caller.tenantId, clientId)
    await audit(tx, caller, { action: 'application.revoke', resourceType: 'application', resourceId: clientId })
  })
