/**
 * What every console page shares: the signed-in actor (from the session cookie), the CSRF token bound to
 * the session, the tenant the host names, and how pages answer (HTML with no-store).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RawServerDefault } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Kysely } from 'kysely'
import type { AttemptCounter } from '../access/attempts.ts'
import type { Actor } from '../access/actor.ts'
import type { Config } from '../config.ts'
import type { DB } from '../db/schema.ts'
import type { LookupCache } from '../lookups/cache.ts'
import type { ServerKeys } from '../keys.ts'
import type { SessionLimits } from '../sessions/service.ts'
import { tenantOfHost, type HostTenant } from '../http/host.ts'
import { mailBase } from '../http/public-url.ts'

export interface ConsoleDeps {
  config: Readonly<Config>
  db: Kysely<DB>
  keys: ServerKeys
  /** Vendor pages read their look-ups through it, like the API. */
  lookups: LookupCache
  attempts: AttemptCounter
  limits: SessionLimits
  /**
   * The port the service listens on, if it listens: the console's own app never does (it is mounted on the
   * service's, http/mount.ts), so it asks the service's.
   */
  listeningPort(): number | undefined
}

/** The console's routes, typed by their TypeBox schemas (params, query and form bodies). */
export type ConsoleApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

export interface ConsoleSession {
  id: number
  token: string
  actor: Actor
  csrf: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The console session (signed-in pages only). */
    session: ConsoleSession
  }
  interface FastifyContextConfig {
    /** A console page anyone may open (sign-in, set-password, assets). */
    publicPage?: boolean
  }
}

export const COOKIE = 'procurement_session'
/** Over HTTPS the cookie takes the `__Host-` prefix: Secure, Path=/, no Domain, so no other host can set it. */
export const SECURE_COOKIE = '__Host-procurement_session'

export const cookieName = (request: FastifyRequest) => (request.protocol === 'https' ? SECURE_COOKIE : COOKIE)

export function sessionToken(request: FastifyRequest): string | undefined {
  const cookies = request.cookies
  return cookies[SECURE_COOKIE] ?? (request.protocol === 'https' ? undefined : cookies[COOKIE])
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxHours: number): void {
  reply.setCookie(cookieName(request), token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: maxHours * 3600,
  })
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(cookieName(request), {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
  })
}

/** The CSRF token of a session: an HMAC of its token, so it needs no storage and dies with the session. */
export const csrfFor = (keys: ServerKeys, token: string) =>
  createHmac('sha256', keys.signingKey).update(`console-csrf\0${token}`).digest('base64url')

export function csrfMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

export const hostOf = (config: Readonly<Config>, request: { host: string }): HostTenant =>
  tenantOfHost(config.BASE_DOMAIN, request.host)

/** Sends a console page: HTML, never cached. */
export const sendPage = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body)

/** Only paths inside the console are followed after sign-in (no open redirect). */
export const safeNext = (next: unknown) =>
  typeof next === 'string' && /^\/console(\/[A-Za-z0-9/_?=&%.-]*)?$/.test(next) && !next.startsWith('//')
    ? next
    : '/console/'

/** Where the links of e-mail (and redirects) for tenant `domain` start: its console's origin. */
export const mailBaseOf = (deps: ConsoleDeps, domain: string): string =>
  mailBase(deps.config, domain, deps.listeningPort())
