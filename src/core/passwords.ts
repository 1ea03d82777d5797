/**
 * Console passwords, stored only as scrypt hashes (Node's built-in, memory-hard KDF): N = 2^15, r = 8,
 * p = 1 (32 MiB and about 50–100 ms per hash on this hardware), a 16-byte random salt, a 32-byte key.
 * The parameters travel in the stored string, so they can be raised later without breaking old hashes.
 * Checking a password for an unknown e-mail runs the same hash against a dummy, so the two cannot be
 * told apart by time.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

const N = 2 ** 15
const R = 8
const P = 1
const KEY_LENGTH = 32
const MAX_MEMORY = 64 * 1024 * 1024

export const PASSWORD_MIN_LENGTH = 10
export const PASSWORD_MAX_LENGTH = 256

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )
}

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<key>` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, N, R, P)
  return ['scrypt', Math.log2(N), R, P, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** A hash no password matches, with today's parameters: the work done for an unknown account. */
const DUMMY = `scrypt$${Math.log2(N)}$${R}$${P}$${randomBytes(16).toString('base64url')}$${randomBytes(KEY_LENGTH).toString('base64url')}`

/** Whether `password` matches `stored` (or, for a missing hash, the same work and false). */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? DUMMY).split('$')
  const [scheme, logN, r, p, salt, key] = parts
  if (parts.length !== 6 || scheme !== 'scrypt') return verifyPassword(password, DUMMY).then(() => false)
  const expected = Buffer.from(key!, 'base64url')
  const actual = await derive(password, Buffer.from(salt!, 'base64url'), 2 ** Number(logN), Number(r), Number(p))
  return (
    stored !== null && stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected)
  )
}

/** What is wrong with a new password, or undefined. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`
  return undefined
}
