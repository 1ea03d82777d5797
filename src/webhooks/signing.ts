/**
 * Standard Webhooks signing: `whsec_` secrets (base64 of 32 random bytes) and the `webhook-signature`
 * header, `v1,<base64 HMAC-SHA256(secret bytes, "<id>.<timestamp>.<body>")>`, one per secret in force.
 */
import { createHmac, randomBytes } from 'node:crypto'

export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** The three headers of one attempt, signed by every secret given (space-separated signatures). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000)
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, id, timestamp, body)).join(' '),
  }
}
