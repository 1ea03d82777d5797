/**
 * The tenant's identity provider (`/api/v3/sso/`, Settings → Single sign-on): superusers only. Saving checks
 * the issuer by OpenID discovery with the given client (a 400 naming what failed) and keeps the client secret
 * sealed, never returned; the configuration's existence is what `is_sso_enabled` reports.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { notFound, validationFailed, type FieldErrors } from '../core/problem.ts'
import { emailKey } from '../db/email.ts'
import type { DB } from '../db/schema.ts'
import type { ServerKeys } from '../keys.ts'
import { syncGroupRoles } from './grants.service.ts'
import { discoveryFailure, providerOf } from './provider.ts'
import * as repo from './repository.ts'
import type { SsoConfig, SsoConfigInput } from './schema.ts'
import { open, seal } from './seal.ts'

export const SECRET_PURPOSE = 'sso-client-secret'
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/

export interface SsoPolicy {
  allowHttpIssuer: boolean
}

export const toConfig = (row: repo.ConfigRow, origin: string): SsoConfig => ({
  issuer: row.issuer,
  client_id: row.client_id,
  scopes: row.scopes,
  allowed_domains: row.allowed_domains,
  jit_provisioning: row.jit_provisioning,
  default_role: row.default_role_id,
  groups_claim: row.groups_claim,
  group_roles: row.group_roles,
  password_login: row.password_login,
  redirect_uri: `${origin}/console/sso/callback`,
  scim_base_url: `${origin}/scim/v2`,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
})

export async function getConfig(db: Kysely<DB>, actor: Actor, origin: string): Promise<SsoConfig> {
  requireAny(actor, 'superuser')
  const row = await repo.findConfig(db, actor.tenantId)
  if (row === undefined) throw notFound('Single sign-on is not configured; PUT a configuration to set it up.')
  return toConfig(row, origin)
}

/** What is wrong with an issuer URL before anyone fetches it; undefined when nothing is. */
function issuerProblem(issuer: string, policy: SsoPolicy): string | undefined {
  let url: URL
  try {
    url = new URL(issuer)
  } catch {
    return 'must be an absolute URL like https://login.example.com'
  }
  if (url.protocol === 'http:' && !policy.allowHttpIssuer)
    return 'must use https:// (http:// only when the service runs with SSO_ALLOW_HTTP_ISSUER=true)'
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL'
  if (url.username !== '' || url.password !== '') return 'may not contain a user name or password'
  if (url.search !== '' || url.hash !== '') return 'may not contain a query or a fragment'
  return undefined
}

/** The client secret of a stored configuration, opened with the current or a previous pepper. */
export function clientSecretOf(keys: ServerKeys, row: repo.ConfigRow): string | undefined {
  return open([keys.pepper, ...(keys.previousPeppers ?? [])], SECRET_PURPOSE, row.client_secret_sealed)
}

export async function saveConfig(
  db: Kysely<DB>,
  actor: Actor,
  keys: ServerKeys,
  policy: SsoPolicy,
  input: SsoConfigInput,
  origin: string,
): Promise<{ config: SsoConfig; created: boolean }> {
  requireAny(actor, 'superuser')
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  const issuer = input.issuer.trim()
  const issuerFault = issuerProblem(issuer, policy)
  if (issuerFault !== undefined) add('issuer', issuerFault)
  const domains = [...new Set((input.allowed_domains ?? []).map((d) => emailKey(d.trim()).replace(/^@/, '')))]
  domains.forEach((d, i) => {
    if (!DOMAIN.test(d)) add(`allowed_domains.${i}`, 'must be an e-mail domain like example.com')
  })
  const jit = input.jit_provisioning ?? false
  if (jit && domains.length === 0)
    add('allowed_domains', 'must list at least one e-mail domain when jit_provisioning is true')
  const refs = await repo.referenceIds(db, actor.tenantId)
  const defaultRole = input.default_role ?? null
  if (defaultRole !== null && !refs.roles.has(defaultRole)) add('default_role', `no role ${defaultRole}`)
  const groupRoles = (input.group_roles ?? []).map((g) => ({
    group: g.group.trim(),
    role: g.role,
    location: g.location,
  }))
  groupRoles.forEach((g, i) => {
    if (g.group === '') add(`group_roles.${i}.group`, 'is required')
    if (!refs.roles.has(g.role)) add(`group_roles.${i}.role`, `no role ${g.role}`)
    if (g.location !== null && !refs.locations.has(g.location))
      add(`group_roles.${i}.location`, `no location ${g.location}`)
  })
  const existing = await repo.findConfig(db, actor.tenantId)
  const secret = input.client_secret ?? (existing === undefined ? undefined : clientSecretOf(keys, existing))
  if (secret === undefined)
    add(
      'client_secret',
      existing === undefined
        ? 'is required when single sign-on is first configured'
        : 'is required again: the stored one can no longer be read (the server keys changed)',
    )
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  let discovered: Awaited<ReturnType<typeof providerOf>>
  try {
    discovered = await providerOf(
      { issuer, clientId: input.client_id, clientSecret: secret!, allowHttp: policy.allowHttpIssuer },
      true,
    )
  } catch (error) {
    throw validationFailed(
      { issuer: [`OpenID discovery failed: ${discoveryFailure(error)}`] },
      `The issuer could not be checked: OpenID discovery at ${issuer.replace(/\/$/, '')}/.well-known/openid-configuration failed (${discoveryFailure(error)}).`,
    )
  }
  // ID tokens are verified against the provider's published keys: a provider that publishes none cannot be used.
  if (discovered.serverMetadata().jwks_uri === undefined)
    throw validationFailed(
      { issuer: ['publishes no jwks_uri in its OpenID discovery document, so its ID tokens cannot be verified'] },
      `The issuer cannot be used: its discovery document at ${issuer.replace(/\/$/, '')}/.well-known/openid-configuration names no jwks_uri (the keys its ID tokens are signed with).`,
    )
  const values = {
    issuer,
    client_id: input.client_id,
    client_secret_sealed: seal(keys.pepper, SECRET_PURPOSE, secret!),
    scopes: input.scopes ?? 'openid email profile',
    allowed_domains: domains,
    jit_provisioning: jit,
    default_role_id: defaultRole,
    groups_claim: input.groups_claim ?? 'groups',
    group_roles: JSON.stringify(groupRoles),
    password_login: input.password_login ?? 'allowed',
  }
  await db.transaction().execute(async (tx) => {
    await repo.upsertConfig(tx, actor.tenantId, values)
    const { client_secret_sealed: _sealed, ...shown } = values
    void _sealed
    await audit(tx, actor, {
      action: existing === undefined ? 'sso.create' : 'sso.update',
      resourceType: 'sso',
      resourceId: actor.tenantId,
      changes: { ...shown, group_roles: groupRoles, client_secret_changed: input.client_secret !== undefined },
    })
    // The mapping may have changed: everyone in a group gets the roles it maps to now.
    for (const userId of await repo.usersWithGroups(tx, actor.tenantId)) await syncGroupRoles(tx, actor, userId)
  })
  const row = (await repo.findConfig(db, actor.tenantId))!
  return { config: toConfig(row, origin), created: existing === undefined }
}

export async function deleteConfig(db: Kysely<DB>, actor: Actor): Promise<void> {
  requireAny(actor, 'superuser')
  await db.transaction().execute(async (tx) => {
    if (!(await repo.deleteConfig(tx, actor.tenantId))) throw notFound('Single sign-on is not configured.')
    await audit(tx, actor, { action: 'sso.delete', resourceType: 'sso', resourceId: actor.tenantId })
    // Without a configuration no group maps to a role: the grants the mappings made are withdrawn.
    for (const userId of await repo.usersWithGroups(tx, actor.tenantId)) await syncGroupRoles(tx, actor, userId)
  })
}

/** The stored configuration of a tenant, for sign-in (no permission: the person is not signed in yet). */
export const configOfTenant = repo.findConfig
