/**
 * Secrets the service must read back (an identity provider's client secret, a sign-in's PKCE verifier), kept
 * sealed: AES-256-GCM under a key derived (HKDF-SHA-256) from a server key and the purpose, so a copy of the
 * database alone reveals nothing and a value sealed for one purpose cannot be opened as another. Sealed under
 * a previous pepper (SECRET_PEPPERS_PREVIOUS) still opens, as hashed client secrets still verify.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const PREFIX = 'v1.'

const keyFor = (secret: Buffer, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', secret, 'procurement-seal', purpose, 32))

export function seal(secret: Buffer, purpose: string, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret, purpose), iv)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

/** The plaintext, or undefined when `sealed` was not sealed for `purpose` under any of `secrets`. */
export function open(secrets: readonly Buffer[], purpose: string, sealed: string): string | undefined {
  if (!sealed.startsWith(PREFIX)) return undefined
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url')
  if (raw.length < 28) return undefined
  for (const secret of secrets) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', keyFor(secret, purpose), raw.subarray(0, 12))
      decipher.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    } catch {
      // not this key: try the next
    }
  }
  return undefined
}
