/**
 * The tenant's OpenID provider through `openid-client` (discovery, the authorization-code flow with PKCE,
 * ID token validation): no JWT or discovery code of our own. Discovered metadata is kept for a few minutes per
 * issuer and client, so a sign-in does not fetch it twice.
 *
 * By default openid-client does not check the signature of an ID token that comes from the token endpoint
 * (OpenID Connect Core §3.1.3.7 lets TLS stand in for it); its non-repudiation checks make it verify the
 * signature against the provider's published keys (its JWKS, the key chosen by `kid`), so a token endpoint that
 * answers with a token signed by any other key is refused. It does not bound `iat` in the future: that is
 * checked here.
 */
import * as client from 'openid-client'

export interface ProviderSettings {
  issuer: string
  clientId: string
  clientSecret: string
  allowHttp: boolean
}

const CACHE_MS = 5 * 60_000
const cache = new Map<string, { at: number; config: client.Configuration }>()

/** Discovers the provider (always fresh when `fresh`, e.g. when a configuration is saved). */
export async function providerOf(settings: ProviderSettings, fresh = false): Promise<client.Configuration> {
  const key = JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret, settings.allowHttp])
  const hit = cache.get(key)
  if (!fresh && hit !== undefined && Date.now() - hit.at < CACHE_MS) return hit.config
  const config = await client.discovery(
    new URL(settings.issuer),
    settings.clientId,
    undefined,
    client.ClientSecretPost(settings.clientSecret),
    {
      execute: [client.enableNonRepudiationChecks, ...(settings.allowHttp ? [client.allowInsecureRequests] : [])],
      timeout: 10,
    },
  )
  if (cache.size > 1000) cache.clear()
  cache.set(key, { at: Date.now(), config })
  return config
}

/** Why discovery failed, in words (openid-client's messages, plus the HTTP status or network cause). */
export function discoveryFailure(error: unknown): string {
  if (!(error instanceof Error)) return 'an unknown error'
  const cause = (error as { cause?: unknown }).cause
  const status =
    cause instanceof Response ? ` (HTTP ${cause.status})` : cause instanceof Error ? ` (${cause.message})` : ''
  return `${error.message.replace(/\.$/, '')}${status}`
}

export interface Flow {
  state: string
  nonce: string
  verifier: string
}

/** A new sign-in's secrets and the provider URL to send the browser to. */
export async function startFlow(
  provider: client.Configuration,
  redirectUri: string,
  scopes: string,
): Promise<{ flow: Flow; url: URL }> {
  const flow = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() }
  const url = client.buildAuthorizationUrl(provider, {
    redirect_uri: redirectUri,
    scope: scopes,
    response_type: 'code',
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: 'S256',
  })
  return { flow, url }
}

/** How far in the future an ID token's `iat` may be (the two clocks' skew). */
const FUTURE_IAT_SECONDS = 5 * 60

/** Exchanges the code and validates the ID token (issuer, audience, nonce, signature, times); returns its claims. */
export async function finishFlow(
  provider: client.Configuration,
  callbackUrl: URL,
  flow: Flow,
): Promise<Record<string, unknown>> {
  const tokens = await client.authorizationCodeGrant(provider, callbackUrl, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
    idTokenExpected: true,
  })
  const claims = tokens.claims()
  if (claims === undefined) throw new Error('the provider returned no ID token')
  if (claims.iat > Date.now() / 1000 + FUTURE_IAT_SECONDS)
    throw new Error('the ID token is dated in the future (its iat is more than 5 minutes ahead of this server’s clock)')
  return { ...claims }
}
