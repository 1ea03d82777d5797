/**
 * Receiving webhooks: `verifyWebhook` checks a delivery as Standard Webhooks defines it — the
 * `webhook-signature` header holds one or more `v1,<base64 HMAC-SHA256>` signatures of
 * `<webhook-id>.<webhook-timestamp>.<body>` (two for a day after the secret is rotated), and the timestamp
 * must be within 5 minutes of now. Signatures are compared by the platform's HMAC verification (constant
 * time). Runs wherever Web Crypto does (Node 20, browsers' workers, edge runtimes).
 */
import type { AnyEvent } from './events.ts'

/** The delivery is not authentic (wrong secret, altered body, missing header) or too old or new. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError'
}

export interface VerifyOptions {
  /** How far the timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number
  /** The current time (default: now). */
  now?: Date
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  const bag = headers as Record<string, string | string[] | undefined>
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : bag[key]
  return Array.isArray(value) ? value.join(' ') : value
}

const bytesOf = (base64: string): Uint8Array<ArrayBuffer> | undefined => {
  try {
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))
  } catch {
    return undefined
  }
}

/**
 * Verifies a webhook delivery and returns its event. `body` is the raw request body, exactly as received
 * (parse it only after verifying); `secret` is the endpoint's `whsec_…` secret.
 * @example
 * const event = await verifyWebhook(rawBody, request.headers, process.env.WEBHOOK_SECRET!)
 * if (event.type === 'vendor.created') console.log(event.data.object.name)
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  options: VerifyOptions = {},
): Promise<AnyEvent> {
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (id === undefined || timestamp === undefined || signatures === undefined)
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header')
  const seconds = Number(timestamp)
  const now = (options.now ?? new Date()).getTime() / 1000
  if (!/^[0-9]+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('The webhook-timestamp is too old or too new')
  const keyBytes = bytesOf(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret)
  if (keyBytes === undefined) throw new WebhookVerificationError('The secret is not base64')
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body)
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${text}`)
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2)
    if (version !== 'v1' || value === undefined) continue
    const signature = bytesOf(value)
    if (signature !== undefined && (await crypto.subtle.verify('HMAC', key, signature, signed)))
      return JSON.parse(text) as AnyEvent
  }
  throw new WebhookVerificationError('No signature matches')
}
