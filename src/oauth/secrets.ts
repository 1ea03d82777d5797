/**
 * Client credentials. A secret is 256 random bits, shown once and kept only as HMAC-SHA-256 under the
 * server pepper, so a copy of the database alone does not let anyone check guesses offline.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

export const newClientId = (): string => `pc_${randomBytes(18).toString('base64url')}`
export const newClientSecret = (): string => randomBytes(32).toString('base64url')

export function hashSecret(pepper: Buffer, secret: string): Buffer {
  return createHmac('sha256', pepper).update(secret, 'utf8').digest()
}

/** Constant-time comparison. `stored` may be a dummy hash, so a missing client costs the same as a wrong secret. */
export function secretMatches(pepper: Buffer, secret: string, stored: Buffer): boolean {
  const given = hashSecret(pepper, secret)
  return stored.length === given.length && timingSafeEqual(given, stored)
}

/**
 * Which pepper `secret` matches `stored` under: the current one, a previous one (SECRET_PEPPERS_PREVIOUS: the
 * caller hashes it again under the current one), or none. Every pepper is tried every time, so the answer
 * takes the same work whichever it is.
 */
export function secretMatchesAny(
  pepper: Buffer,
  previous: readonly Buffer[],
  secret: string,
  stored: Buffer,
): 'current' | 'previous' | undefined {
  const current = secretMatches(pepper, secret, stored)
  let old = false
  for (const p of previous) old = secretMatches(p, secret, stored) || old
  return current ? 'current' : old ? 'previous' : undefined
}

/** Compared against when the client id is unknown, so that case takes as long as a wrong secret. */
export const DUMMY_HASH: Buffer = randomBytes(32)
