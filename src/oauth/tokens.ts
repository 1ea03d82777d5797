/**
 * Access tokens: JWTs signed with HS256 under the server's signing key, so any node that shares the key
 * verifies them without a lookup. What a JWT cannot say (revoked since, owner deactivated since) is
 * checked against the database on every API request (src/oauth/bearer.ts).
 */
import { createHash, randomUUID, webcrypto } from 'node:crypto'
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose'
import type { Config } from '../config.ts'
import type { ServerKeys } from '../keys.ts'

export const TOKEN_LIFETIME_SECONDS = 86400
const TYP = 'at+jwt'
/** How far a token's `iat` may lie in the future: the clock skew tolerated between nodes. */
const MAX_CLOCK_SKEW_SECONDS = 60

export interface TokenSubject {
  tenantId: number
  domain: string
  userId: number
  applicationId: number
  clientId: string
  secretVersion: number
}

export interface AccessClaims extends TokenSubject {
  jti: string
  expiresAt: Date
}

export async function signAccessToken(
  keys: ServerKeys,
  config: Pick<Config, 'TOKEN_ISSUER' | 'API_AUDIENCE'>,
  subject: TokenSubject,
): Promise<{ token: string; jti: string }> {
  const jti = randomUUID()
  const token = await new SignJWT({
    tid: subject.tenantId,
    dom: subject.domain,
    aid: subject.applicationId,
    client_id: subject.clientId,
    ver: subject.secretVersion,
  })
    .setProtectedHeader({ alg: 'HS256', typ: TYP, kid: kidOf(keys.signingKey) })
    .setIssuer(config.TOKEN_ISSUER)
    .setAudience(config.API_AUDIENCE)
    .setSubject(String(subject.userId))
    .setJti(jti)
    .setIssuedAt()
    .setExpirationTime(`${TOKEN_LIFETIME_SECONDS}s`)
    .sign(await cryptoKeyOf(keys.signingKey))
  return { token, jti }
}

const isInt = (value: unknown): value is number => Number.isSafeInteger(value)

/**
 * The HMAC key as a WebCrypto CryptoKey, imported once per key. jose signs and verifies through WebCrypto;
 * handed raw bytes or a KeyObject, it would import the key again on every call.
 */
const cryptoKeys = new WeakMap<Uint8Array, Promise<webcrypto.CryptoKey>>()
function cryptoKeyOf(raw: Uint8Array): Promise<webcrypto.CryptoKey> {
  let key = cryptoKeys.get(raw)
  if (key === undefined)
    cryptoKeys.set(
      raw,
      (key = webcrypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])),
    )
  return key
}

/**
 * A token's `kid`: names the signing key without revealing it (a hash of it), the same on every node that
 * shares the key. After a rotation (TOKEN_SIGNING_KEYS_PREVIOUS) it picks the key that verifies; a token
 * whose key is no longer configured verifies under none and is refused.
 */
const kids = new WeakMap<Uint8Array, string>()
function kidOf(raw: Uint8Array): string {
  let kid = kids.get(raw)
  if (kid === undefined)
    kids.set(
      raw,
      (kid = createHash('sha256').update('procurement-token-key\0').update(raw).digest('base64url').slice(0, 16)),
    )
  return kid
}

/** The keys that may have signed `token`: the one its kid names; without a kid (older tokens), each in turn. */
function verifyingKeys(keys: ServerKeys, token: string): Uint8Array[] {
  let kid: unknown
  try {
    kid = decodeProtectedHeader(token).kid
  } catch {
    return []
  }
  const all = [keys.signingKey, ...(keys.previousSigningKeys ?? [])]
  return kid === undefined ? all : all.filter((key) => kidOf(key) === kid)
}

/**
 * Tokens already verified, by their exact text: a client sends the same token for up to a day, and checking
 * an HS256 signature through WebCrypto costs more than the rest of the check. Keyed by the expected issuer
 * and audience too; a hit still checks the expiry. Bounded, oldest out first.
 */
const VERIFIED_MAX = 5000
const verified = new WeakMap<ServerKeys, Map<string, AccessClaims>>()

/** Verifies signature, algorithm, type, issuer, audience, expiry, `nbf` and `iat`; undefined for any failure. */
export async function verifyAccessToken(
  keys: ServerKeys,
  config: Pick<Config, 'TOKEN_ISSUER' | 'API_AUDIENCE'>,
  token: string,
): Promise<AccessClaims | undefined> {
  let known = verified.get(keys)
  if (known === undefined) verified.set(keys, (known = new Map<string, AccessClaims>()))
  const key = `${config.TOKEN_ISSUER}\n${config.API_AUDIENCE}\n${token}`
  const hit = known.get(key)
  if (hit !== undefined) {
    if (hit.expiresAt.getTime() > Date.now()) return hit
    known.delete(key)
    return undefined
  }
  const claims = await checkAccessToken(keys, config, token)
  if (claims !== undefined) {
    if (known.size >= VERIFIED_MAX) known.delete(known.keys().next().value!)
    known.set(key, claims)
  }
  return claims
}

async function checkAccessToken(
  keys: ServerKeys,
  config: Pick<Config, 'TOKEN_ISSUER' | 'API_AUDIENCE'>,
  token: string,
): Promise<AccessClaims | undefined> {
  for (const key of verifyingKeys(keys, token)) {
    const claims = await checkWith(key, config, token)
    if (claims !== undefined) return claims
  }
  return undefined
}

async function checkWith(
  key: Uint8Array,
  config: Pick<Config, 'TOKEN_ISSUER' | 'API_AUDIENCE'>,
  token: string,
): Promise<AccessClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, await cryptoKeyOf(key), {
      algorithms: ['HS256'],
      issuer: config.TOKEN_ISSUER,
      audience: config.API_AUDIENCE,
      typ: TYP,
      requiredClaims: ['exp', 'iat', 'jti', 'sub'],
    })
    const userId = Number(payload.sub)
    const { tid, dom, aid, client_id, ver, jti, exp, iat } = payload
    if (!isInt(userId) || !isInt(tid) || !isInt(aid) || !isInt(ver) || !isInt(exp) || !isInt(iat)) return undefined
    // Issued in the future (beyond clock skew between nodes) is no token of ours; jose already refuses an
    // `nbf` still to come.
    if (iat > Math.floor(Date.now() / 1000) + MAX_CLOCK_SKEW_SECONDS) return undefined
    if (typeof dom !== 'string' || typeof client_id !== 'string' || typeof jti !== 'string') return undefined
    return {
      tenantId: tid,
      domain: dom,
      userId,
      applicationId: aid,
      clientId: client_id,
      secretVersion: ver,
      jti,
      expiresAt: new Date(exp * 1000),
    }
  } catch {
    return undefined
  }
}
