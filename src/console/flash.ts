/**
 * New client credentials carried from the POST that made them to the page that shows them (POST → redirect →
 * GET, so a reload shows the list again and never makes a second application). The credentials ride for one
 * hop in a cookie of the browser that asked: sealed with AES-256-GCM under a key derived from the server's
 * signing key, HttpOnly, SameSite=Strict, limited to the applications page, a minute long, and cleared by the
 * page that reads it — so the secret is still shown exactly once, whichever worker or node answers the GET.
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
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyOf(keys), iv)
  const body = Buffer.concat([cipher.update(JSON.stringify({ ...value, at: Date.now() }), 'utf8'), cipher.final()])
  const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
  reply.setCookie(COOKIE, sealed, {
    path: PATH,
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    maxAge: SECONDS,
  })
}

/** The credentials the cookie carries (then cleared), if it is ours, intact and fresh; else undefined. */
export function openCredentials(keys: ServerKeys, request: FastifyRequest, reply: FastifyReply): Sealed | undefined {
  const sealed = request.cookies[COOKIE]
  if (sealed === undefined) return undefined
  reply.clearCookie(COOKIE, { path: PATH, httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https' })
  try {
    const raw = Buffer.from(sealed, 'base64url')
    const decipher = createDecipheriv('aes-256-gcm', keyOf(keys), raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    const value = JSON.parse(text) as Partial<Sealed & { at: number }>
    const fresh = typeof value.at === 'number' && Date.now() - value.at < SECONDS * 1000
    return fresh && typeof value.client_id === 'string' && typeof value.client_secret === 'string'
      ? { client_id: value.client_id, client_secret: value.client_secret, title: String(value.title ?? '') }
      : undefined
  } catch {
    return undefined
  }
}
