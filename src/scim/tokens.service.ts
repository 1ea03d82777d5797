/**
 * SCIM bearer tokens: made and revoked by a superuser, 256 random bits shown once, kept only as a keyed hash
 * (core/secrets.ts) like client secrets. A token acts for its tenant's owner; it is not a person's token.
 */
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { notFound } from '../core/problem.ts'
import { hashSecret } from '../core/secrets.ts'
import type { Page } from '../core/list-query.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import type { ScimToken, ScimTokenInput, ScimTokenListQuery, ScimTokenWithSecret } from './schema.ts'
import * as repo from './tokens.repository.ts'

const toToken = (row: { id: number; description: string; created_at: Date; last_used_at: Date | null }): ScimToken => ({
  id: row.id,
  description: row.description,
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null,
})

export async function createToken(
  db: Kysely<DB>,
  actor: Actor,
  pepper: Buffer,
  input: ScimTokenInput,
  origin: string,
): Promise<ScimTokenWithSecret> {
  requireAny(actor, 'superuser')
  const token = `scim_${randomBytes(32).toString('base64url')}`
  // Under an Idempotency-Key the request's db may already be a transaction.
  return inTransaction(db, async (tx) => {
    const row = await repo.insertToken(tx, {
      tenant_id: actor.tenantId,
      token_hash: hashSecret(pepper, token),
      description: input.description?.trim() ?? '',
      created_by: actor.userId,
    })
    await audit(tx, actor, {
      action: 'scim_token.create',
      resourceType: 'scim_token',
      resourceId: row.id,
      changes: { description: row.description },
    })
    return { ...toToken(row), token, scim_base_url: `${origin}/scim/v2` }
  })
}

/** Every token of the tenant (the console's Single sign-on page). */
export async function listTokens(db: Kysely<DB>, actor: Actor): Promise<ScimToken[]> {
  requireAny(actor, 'superuser')
  return (await repo.listTokens(db, actor.tenantId)).map(toToken)
}

/** One page of the tenant's tokens (the API's list). */
export async function pageOfTokens(db: Kysely<DB>, actor: Actor, query: ScimTokenListQuery): Promise<Page<ScimToken>> {
  requireAny(actor, 'superuser')
  const page = await repo.pageOfTokens(db, actor.tenantId, query)
  return { ...page, rows: page.rows.map(toToken) }
}

export async function revokeToken(db: Kysely<DB>, actor: Actor, id: number): Promise<void> {
  requireAny(actor, 'superuser')
  await inTransaction(db, async (tx) => {
    if (!(await repo.deleteToken(tx, actor.tenantId, id))) throw notFound(`No SCIM token ${id}.`)
    await audit(tx, actor, { action: 'scim_token.revoke', resourceType: 'scim_token', resourceId: id })
  })
}

export interface ScimCaller {
  tokenId: number
  tenantId: number
  domain: string
}

/** The tenant a SCIM bearer token acts for, or undefined (unknown, revoked, or its tenant deactivated). */
export async function tokenCaller(
  db: Kysely<DB>,
  peppers: readonly Buffer[],
  token: string,
): Promise<ScimCaller | undefined> {
  if (!/^scim_[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined
  const row = await repo.tokenByHash(
    db,
    peppers.map((p) => hashSecret(p, token)),
  )
  if (row === undefined || !row.active) return undefined
  // Recorded at most once a minute: a sync of thousands of users need not write on every request.
  if (row.last_used_at === null || Date.now() - row.last_used_at.getTime() > 60_000)
    await repo.touchToken(db, row.tenant_id, row.id)
  return { tokenId: row.id, tenantId: row.tenant_id, domain: row.domain }
}
