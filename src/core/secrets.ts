/**
 * Secrets kept as a keyed hash: HMAC-SHA-256 under a server pepper, so a copy of the database alone does not
 * let anyone check guesses offline, and compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

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
