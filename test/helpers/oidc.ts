/**
 * A real OpenID provider for the tests: `oidc-provider` on http://127.0.0.1:<port>, with one confidential
 * client and the people the test puts in `accounts` (its development log-in form accepts any password).
 * `signInThrough` walks its log-in and consent forms over HTTP (no browser) and returns the redirect back to
 * the service, with the authorization code.
 *
 * `startScriptedProvider` is a provider of the test's own on node:http, whose token endpoint answers what the
 * test scripts: any claims, an ID token signed with a key it does not publish, or dated in the future.
 */
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import Provider from 'oidc-provider'

export interface Person {
  email?: string
  email_verified?: boolean
  given_name?: string
  family_name?: string
  groups?: string[]
}

export interface TestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  accounts: Map<string, Person>
  /** Redirect URIs the client may use (set by the test before signing in). */
  redirectUris: string[]
  close(): Promise<void>
}

export async function startProvider(redirectUris: string[]): Promise<TestProvider> {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const accounts = new Map<string, Person>()
  const clientId = 'procurement'
  const clientSecret = 'a-client-secret-of-the-test-provider-0123456789'
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['given_name', 'family_name', 'name'],
      groups: ['groups'],
    },
    conformIdTokenClaims: false,
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => {
        const person = accounts.get(id) ?? {}
        return { sub: id, ...person }
      },
    }),
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    ttl: { Session: 3600, Grant: 3600, AccessToken: 3600, IdToken: 3600, Interaction: 3600 },
  })
  provider.proxy = false
  if (process.env.DEBUG_IDP) provider.on('server_error', (_ctx, error) => console.error('idp', error))
  const handle = provider.callback()
  server.on('request', (request, response) => void handle(request, response))
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    redirectUris,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A tiny cookie jar over fetch, following no redirects by itself. */
export class Jar {
  private cookies = new Map<string, Map<string, string>>()
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const host = new URL(url).host
    const jar = this.cookies.get(host) ?? new Map<string, string>()
    this.cookies.set(host, jar)
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
    const headers = new Headers(init.headers)
    if (cookie !== '') headers.set('cookie', cookie)
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      const name = pair!.slice(0, at).trim()
      const value = pair!.slice(at + 1).trim()
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name)
      else jar.set(name, value)
    }
    return response
  }
}

/**
 * Follows redirects from `start` through the provider's log-in (as `login`) and consent forms, until a
 * redirect leaves the provider; returns that last response (the service's callback, already requested).
 */
export async function signInThrough(
  jar: Jar,
  provider: Pick<TestProvider, 'issuer'>,
  start: string,
  login: string,
): Promise<Response> {
  let response = await jar.fetch(start)
  for (let i = 0; i < 20; i++) {
    const location = response.headers.get('location')
    if (location !== null) {
      const next = new URL(location, response.url || start).toString()
      response = await jar.fetch(next)
      if (!next.startsWith(provider.issuer)) return response
      continue
    }
    const html = await response.text()
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    if (action === undefined) throw new Error(`the provider showed no form: ${response.status} ${html.slice(0, 300)}`)
    const form = new URLSearchParams()
    for (const [tag] of html.matchAll(/<input[^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(tag)?.[1]
      if (name !== undefined) form.set(name, /value="([^"]*)"/.exec(tag)?.[1] ?? '')
    }
    if (form.has('login')) form.set('login', login)
    if (form.has('password')) form.set('password', 'any')
    response = await jar.fetch(new URL(action, provider.issuer).toString(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    })
  }
  throw new Error('too many steps at the provider')
}

/** What the scripted provider's token endpoint answers at the next sign-ins. */
export interface Script {
  /** The ID token's claims besides iss, aud, nonce, iat and exp; `sub` names the person. */
  claims: Record<string, unknown>
  /**
   * The key that signs the ID token: the published one (the default), a foreign one under its own `kid`, or a
   * foreign one under the published key's `kid`.
   */
  key?: 'published' | 'foreign' | 'foreign-same-kid'
  /** Seconds added to the ID token's `iat` (and `exp`). */
  iatOffset?: number
}

export interface ScriptedProvider {
  issuer: string
  clientId: string
  clientSecret: string
  script: Script
  close(): Promise<void>
}

/**
 * A provider of our own on http://127.0.0.1:<port>: discovery, a JWKS with one RS256 key, an authorization
 * endpoint that signs in at once (no forms) and a token endpoint that answers as `script` says.
 */
export async function startScriptedProvider(): Promise<ScriptedProvider> {
  const published = await generateKeyPair('RS256')
  const foreign = await generateKeyPair('RS256')
  const publicJwk = { ...(await exportJWK(published.publicKey)), kid: 'published', alg: 'RS256', use: 'sig' }
  const codes = new Map<string, { nonce: string | null; redirectUri: string }>()
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const clientId = 'procurement'
  const clientSecret = 'a-client-secret-of-the-scripted-provider-0123'
  const provider: ScriptedProvider = { issuer, clientId, clientSecret, script: { claims: {} }, close: async () => {} }

  const json = (response: http.ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    response.end(JSON.stringify(body))
  }
  const idToken = async (nonce: string | null) => {
    const { claims, key = 'published', iatOffset = 0 } = provider.script
    const iat = Math.floor(Date.now() / 1000) + iatOffset
    const signer: CryptoKey = key === 'published' ? published.privateKey : foreign.privateKey
    return new SignJWT({ ...claims, ...(nonce === null ? {} : { nonce }) })
      .setProtectedHeader({ alg: 'RS256', kid: key === 'foreign' ? 'foreign' : 'published' })
      .setIssuer(issuer)
      .setAudience(clientId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .sign(signer)
  }

  server.on('request', (request, response) => {
    const url = new URL(request.url ?? '/', issuer)
    if (url.pathname === '/.well-known/openid-configuration')
      return json(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
      })
    if (url.pathname === '/jwks') return json(response, 200, { keys: [publicJwk] })
    if (url.pathname === '/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? ''
      const code = randomBytes(16).toString('base64url')
      codes.set(code, { nonce: url.searchParams.get('nonce'), redirectUri })
      const back = new URL(redirectUri)
      back.searchParams.set('code', code)
      back.searchParams.set('state', url.searchParams.get('state') ?? '')
      response.writeHead(302, { location: back.toString() })
      return response.end()
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      let body = ''
      request.setEncoding('utf8')
      request.on('data', (chunk: string) => (body += chunk))
      request.on('end', () => {
        const form = new URLSearchParams(body)
        const grant = codes.get(form.get('code') ?? '')
        codes.delete(form.get('code') ?? '')
        if (grant === undefined || form.get('client_secret') !== clientSecret)
          return json(response, 400, { error: 'invalid_grant' })
        idToken(grant.nonce).then(
          (token) =>
            json(response, 200, {
              access_token: 'an-access-token',
              token_type: 'Bearer',
              expires_in: 600,
              id_token: token,
            }),
          (error: unknown) => json(response, 500, { error: 'server_error', error_description: String(error) }),
        )
      })
      return
    }
    json(response, 404, { error: 'not_found' })
  })
  provider.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return provider
}
