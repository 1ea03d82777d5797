/**
 * A secret carried from the POST that made it to the page that shows it (POST → redirect → GET, so a reload
 * shows the list again and never makes a second application or endpoint): new client credentials, a webhook
 * endpoint's signing secret. It rides for one hop in a cookie of the browser that asked: sealed with
 * AES-256-GCM under a key derived from the server's signing key, HttpOnly, SameSite=Strict, limited to the
 * page that shows it, a minute long, and cleared by that page — so the secret is still shown exactly once,
 * whichever worker or node answers the GET.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ServerKeys } from '../keys.ts'

const COOKIE = 'procurement_new_credentials'
const PATH = '/console/settings/applications'
const SECONDS = 60

export interface Sealed {
  client_id: string
  client_secret: string
  /** What the page says above them. */
  title: string
}

const keyOf = (keys: ServerKeys) => createHmac('sha256', keys.signingKey).update('console-credentials-flash').digest()

export function sealCredentials(keys: ServerKeys, request: FastifyRequest, reply: FastifyReply, value: Sealed): void {
  sealFlash(keys, request, reply, PATH, { ...value })
}

/** The credentials the cookie carries (then cleared), if it is ours, intact and fresh; else undefined. */
export function openCredentials(keys: ServerKeys, request: FastifyRequest, reply: FastifyReply): Sealed | undefined {
  const value = openFlash(keys, request, reply, PATH)
  return value !== undefined && typeof value.client_id === 'string' && typeof value.client_secret === 'string'
    ? {
        client_id: value.client_id,
        client_secret: value.client_secret,
        title: typeof value.title === 'string' ? value.title : '',
      }
    : undefined
}

/** Seals `value` (text fields) for the page at `path`, for one hop. */
export function sealFlash(
  keys: ServerKeys,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  value: Readonly<Record<string, string>>,
): void {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyOf(keys), iv)
  const body = Buffer.concat([cipher.update(JSON.stringify({ ...value, at: Date.now() }), 'utf8'), cipher.final()])
  const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
  reply.setCookie(COOKIE, sealed, {
    path,
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    maxAge: SECONDS,
  })
}

/** What the cookie for the page at `path` carries (then cleared), if it is ours, intact and fresh; else undefined. */
export function openFlash(
  keys: ServerKeys,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
): Record<string, unknown> | undefined {
  const sealed = request.cookies[COOKIE]
  if (sealed === undefined) return undefined
  reply.clearCookie(COOKIE, { path, httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https' })
  try {
    const raw = Buffer.from(sealed, 'base64url')
    const decipher = createDecipheriv('aes-256-gcm', keyOf(keys), raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    const value = JSON.parse(text) as unknown
    if (typeof value !== 'object' || value === null) return undefined
    const { at } = value as { at?: unknown }
    return typeof at === 'number' && Date.now() - at < SECONDS * 1000 ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
