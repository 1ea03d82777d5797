/**
 * Console sign-in through the tenant's identity provider (DECISIONS, "Single sign-on and provisioning").
 *
 * `beginSignIn` starts the authorization-code flow with PKCE, `state` and `nonce`; those secrets travel in a
 * sealed, short-lived cookie, not in the database. `completeSignIn` checks them against the provider's answer
 * (openid-client validates the ID token), then finds the person: linked by (`iss`, `sub`); else, at a first
 * sign-in, the active user whose e-mail is the verified `email` claim; else a new user (just-in-time, for an
 * allowed domain, with the default role). Deactivated users are refused. Group roles are applied every time.
 * Every refusal is a sentence for a page; no token or claim value is logged.
 */
import type { Kysely } from 'kysely'
import { providerActor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { Problem } from '../core/problem.ts'
import { asciiLowerCase, emailKey } from '../db/email.ts'
import type { DB } from '../db/schema.ts'
import type { HostTenant } from '../http/host.ts'
import type { ServerKeys } from '../keys.ts'
import type { PasswordRule } from '../sessions/service.ts'
import { createOne, EMAIL_TAKEN, emailProblems } from '../users/service.ts'
import { syncGroupRoles } from './grants.service.ts'
import { finishFlow, providerOf, startFlow, type Flow } from './provider.ts'
import * as repo from './repository.ts'
import { open, seal } from './seal.ts'
import { clientSecretOf } from './service.ts'

const FLOW_PURPOSE = 'sso-flow'
/** How long a person has at the provider before the sign-in must start again. */
export const FLOW_MINUTES = 10

export interface SsoTenant {
  id: number
  domain: string
}

export class SignInRefused extends Error {
  constructor(
    readonly reason: string,
    readonly status = 403,
  ) {
    super(reason)
  }
}

/** The tenant a sign-in is for: the host's (several tenants), or the one that has single sign-on (one tenant). */
export async function ssoTenantOf(db: Kysely<DB>, host: HostTenant): Promise<SsoTenant | undefined> {
  if (host.mode === 'multi') {
    if (host.domain === null) return undefined
    const tenant = await repo.tenantByDomain(db, host.domain)
    return tenant === undefined || !tenant.active ? undefined : tenant
  }
  const configured = await repo.configuredTenants(db)
  const only = configured.length === 1 ? configured[0] : undefined
  return only === undefined || !only.active ? undefined : only
}

/** Whether the tenant has single sign-on, and its password policy (for the sign-in page). */
export async function signInOptions(db: Kysely<DB>, host: HostTenant) {
  const tenant = await ssoTenantOf(db, host)
  const config = tenant === undefined ? undefined : await repo.findConfig(db, tenant.id)
  return config === undefined ? undefined : { issuer: config.issuer, passwordLogin: config.password_login }
}

const THROUGH_PROVIDER = 'Your company signs in through its identity provider: use “Sign in with single sign-on”.'

/**
 * The tenant's password policy for one person (`account`, or no account: the host's tenant decides). Where
 * passwords are off for the person (`disabled`, or `superusers_only` and not a superuser) the password is not
 * to be checked; and under either policy every failed sign-in says the same, so neither the password nor
 * whether the person exists or is a superuser can be learnt from the answer.
 */
export async function passwordRule(
  db: Kysely<DB>,
  host: HostTenant,
  account: { tenantId: number; superuser: boolean } | undefined,
): Promise<PasswordRule> {
  // The host's tenant is looked up either way, so a known and an unknown e-mail cost the same queries.
  const hostTenant = await ssoTenantOf(db, host)
  const tenantId = account?.tenantId ?? hostTenant?.id
  const config = tenantId === undefined ? undefined : await repo.findConfig(db, tenantId)
  if (config === undefined || config.password_login === 'allowed') return { off: false }
  if (config.password_login === 'disabled') return { off: true, failure: THROUGH_PROVIDER }
  return {
    off: account?.superuser !== true,
    failure: `${THROUGH_PROVIDER} Only its superusers may sign in with a password; if you are one, the e-mail or password is not right.`,
  }
}

interface FlowCookie extends Flow {
  tenant: number
  next: string
  exp: number
}

const secretsOf = (keys: ServerKeys) => [
  Buffer.from(keys.signingKey),
  ...(keys.previousSigningKeys ?? []).map((k) => Buffer.from(k)),
]

async function providerFor(db: Kysely<DB>, keys: ServerKeys, allowHttp: boolean, tenantId: number) {
  const config = await repo.findConfig(db, tenantId)
  if (config === undefined) throw new SignInRefused('Single sign-on is not set up for this company.', 404)
  const clientSecret = clientSecretOf(keys, config)
  if (clientSecret === undefined)
    throw new SignInRefused(
      'Single sign-on cannot be used: its client secret can no longer be read (the server keys changed). An administrator must save the configuration again.',
      503,
    )
  try {
    const provider = await providerOf({ issuer: config.issuer, clientId: config.client_id, clientSecret, allowHttp })
    return { config, provider }
  } catch {
    throw new SignInRefused(
      `The identity provider (${config.issuer}) cannot be reached right now. Try again in a moment, or ask your administrator.`,
      502,
    )
  }
}

/** The provider URL to send the browser to, and the sealed cookie that carries this sign-in's secrets. */
export async function beginSignIn(
  db: Kysely<DB>,
  keys: ServerKeys,
  allowHttp: boolean,
  tenant: SsoTenant,
  redirectUri: string,
  next: string,
): Promise<{ url: string; cookie: string }> {
  const { config, provider } = await providerFor(db, keys, allowHttp, tenant.id)
  const { flow, url } = await startFlow(provider, redirectUri, config.scopes)
  const cookie: FlowCookie = { ...flow, tenant: tenant.id, next, exp: Date.now() + FLOW_MINUTES * 60_000 }
  return { url: url.toString(), cookie: seal(Buffer.from(keys.signingKey), FLOW_PURPOSE, JSON.stringify(cookie)) }
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined

/** The provider's groups claim as a list of names (a list of strings, or one string). */
function groupsClaim(claims: Record<string, unknown>, name: string): string[] {
  const value = claims[name]
  if (typeof value === 'string') return [value]
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').slice(0, 1000) : []
}

/** Finishes a sign-in: the user to start a session for, and where to go next; throws SignInRefused. */
export async function completeSignIn(
  db: Kysely<DB>,
  keys: ServerKeys,
  allowHttp: boolean,
  tenant: SsoTenant,
  sealedFlow: string | undefined,
  callbackUrl: URL,
  requestId: string,
): Promise<{ tenantId: number; userId: number; next: string }> {
  const opened = sealedFlow === undefined ? undefined : open(secretsOf(keys), FLOW_PURPOSE, sealedFlow)
  const flow = opened === undefined ? undefined : (JSON.parse(opened) as FlowCookie)
  if (flow === undefined || flow.exp < Date.now() || flow.tenant !== tenant.id)
    throw new SignInRefused(
      'This sign-in was not started here, or took longer than 10 minutes. Start again from the sign-in page.',
      400,
    )
  const error = callbackUrl.searchParams.get('error')
  if (error !== null) {
    const description = callbackUrl.searchParams.get('error_description')
    throw new SignInRefused(
      `The identity provider did not sign you in (${error.slice(0, 100)}${description === null ? '' : `: ${description.slice(0, 300)}`}).`,
    )
  }
  const { config, provider } = await providerFor(db, keys, allowHttp, tenant.id)
  let claims: Record<string, unknown>
  try {
    claims = await finishFlow(provider, callbackUrl, flow)
  } catch (failure) {
    // openid-client's message is general ("invalid response encountered"); its cause says what was wrong.
    const cause = failure instanceof Error && failure.cause instanceof Error ? `: ${failure.cause.message}` : ''
    const why = failure instanceof Error ? `${failure.message}${cause}` : 'unknown error'
    throw new SignInRefused(
      `The identity provider's answer could not be accepted (${why}). Start again from the sign-in page.`,
      400,
    )
  }
  const issuer = text(claims.iss)
  const subject = text(claims.sub)
  if (issuer === undefined || subject === undefined)
    throw new SignInRefused('The identity provider did not say who you are (no iss or sub claim).', 400)
  const groups = groupsClaim(claims, config.groups_claim)
  const actor = providerActor(tenant, 'sso', requestId)
  const signInOnce = () =>
    db.transaction().execute(async (tx) => {
      const linked = await repo.identityUser(tx, tenant.id, issuer, subject)
      const user = linked ?? (await firstSignIn(tx, actor, config, claims))
      if (!user.is_active)
        throw new SignInRefused(
          `The account ${user.email} is deactivated here. Ask your administrator to re-activate it.`,
        )
      await repo.link(tx, { tenantId: tenant.id, issuer, subject, userId: user.id, groups })
      if (linked === undefined)
        await audit(tx, actor, {
          action: 'user.sso_link',
          resourceType: 'user',
          resourceId: user.id,
          changes: { issuer, subject },
        })
      await syncGroupRoles(tx, actor, user.id)
      return user.id
    })
  let userId: number
  try {
    userId = await signInOnce()
  } catch (failure) {
    // The same person signing in at the same moment in another tab created or linked them first: found now.
    if ((failure as { code?: unknown } | null)?.code !== '23505') throw failure
    userId = await signInOnce()
  }
  return { tenantId: tenant.id, userId, next: flow.next }
}

/**
 * Whether an `email_verified` claim says verified: absent, `true`, or the string "true" in any (ASCII) case.
 * Anything else — false, "False", 0, 1, "yes", null — is not: a claim that cannot be read is no verification.
 */
const verified = (claim: unknown): boolean =>
  claim === undefined || claim === true || (typeof claim === 'string' && asciiLowerCase(claim) === 'true')

/** A person's first sign-in: the user with their verified e-mail, or a new one (JIT); refused otherwise. */
async function firstSignIn(
  tx: Kysely<DB>,
  actor: ReturnType<typeof providerActor>,
  config: repo.ConfigRow,
  claims: Record<string, unknown>,
): Promise<{ id: number; email: string; is_active: boolean }> {
  const email = text(claims.email)
  if (email === undefined)
    throw new SignInRefused(
      'The identity provider did not send your e-mail address, so your account cannot be found. Ask your administrator to add the email scope.',
    )
  if (!verified(claims.email_verified))
    throw new SignInRefused(
      `The identity provider has not verified ${email}, so it cannot be used to find your account.`,
    )
  const problems = emailProblems(email)
  if (problems.length > 0)
    throw new SignInRefused(
      `The identity provider sent ${email} as your e-mail address, which this service does not accept (${problems.join(', ')}), so it cannot be used to find or create your account. Ask your administrator to correct it at the identity provider.`,
    )
  const existing = await repo.userByEmail(tx, actor.tenantId, email)
  if (existing !== undefined) return existing
  const domain = emailKey(email.slice(email.lastIndexOf('@') + 1))
  if (!config.jit_provisioning)
    throw new SignInRefused(`There is no account for ${email} here. Ask your administrator to add you.`)
  if (!config.allowed_domains.includes(domain))
    throw new SignInRefused(
      `People with an e-mail address at ${domain} cannot join this company by signing in. Ask your administrator to add you.`,
    )
  const local = email.slice(0, email.lastIndexOf('@'))
  try {
    const profile = await createOne(
      tx,
      actor,
      {
        email,
        firstName: (text(claims.given_name) ?? text(claims.name) ?? local).slice(0, 100),
        lastName: (text(claims.family_name) ?? '').slice(0, 100),
        location: null,
        department: null,
        is_sso_enabled: true,
        ...(config.default_role_id === null ? {} : { role_id: config.default_role_id }),
      },
      '',
    )
    return { id: profile.user, email: profile.email, is_active: true }
  } catch (failure) {
    // The same person's sign-in in another tab created them after this one looked: this one links to them.
    const emailErrors = failure instanceof Problem ? [failure.extra.errors ?? {}].flat()[0]?.email : undefined
    const now =
      emailErrors?.includes(EMAIL_TAKEN) === true ? await repo.userByEmail(tx, actor.tenantId, email) : undefined
    if (now !== undefined) return now
    if (failure instanceof Problem) {
      const fields = Object.entries(failure.extra.errors ?? {})
        .map(([field, messages]) => `${field} ${([messages].flat() as string[]).join(', ')}`)
        .join('; ')
      throw new SignInRefused(
        `Your account could not be created from what the identity provider sent: ${fields || failure.detail}.`,
        400,
      )
    }
    throw failure
  }
}
