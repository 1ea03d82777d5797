/**
 * One delivery attempt: the destination checked again (scheme, then every address its name resolves to
 * now), a signed POST to the checked address, and what came back. Success is a 2xx within the timeout;
 * redirects are not followed (a 3xx is a failure like any other non-2xx).
 *
 * Connections are kept alive between attempts in a `Connections` pool, one agent per (scope, origin,
 * checked address): an attempt takes a pooled connection only when its own, fresh resolution and check
 * arrived at that same address, so a connection to an address that is no longer allowed is never used.
 */
import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import {
  pinnedLookup,
  resolveDestination,
  urlProblem,
  type Lookup,
  type Policy,
  type Resolved,
} from './destinations.ts'

export const RESPONSE_BODY_BYTES = 1024
/** Idle kept-alive connections close after this, before common receivers' own idle timeouts (5 s and up). */
const IDLE_MS = 2000
const MAX_AGENTS = 256

export interface AttemptResult {
  ok: boolean
  status: number | null
  durationMs: number
  body: string
  error: string | null
}

export interface Connections {
  /** The agent for connections to `resolved` (an address already checked) for `url`'s origin in `scope`. */
  agent(scope: string, url: URL, resolved: Resolved): http.Agent
  /** Closes every pooled connection. */
  close(): void
}

/** A pool of kept-alive connections, at most `maxSockets` per agent (the caller's concurrency per scope). */
export function connectionPool(maxSockets: number): Connections {
  const agents = new Map<string, http.Agent>()
  return {
    agent(scope, url, resolved) {
      const key = `${scope} ${url.protocol}//${url.host} ${resolved.address}`
      let agent = agents.get(key)
      if (agent !== undefined) {
        agents.delete(key) // re-inserted last: the map is in order of use
      } else {
        const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: IDLE_MS }
        agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options)
        // The least recently used agents that have nothing in flight go first.
        for (const [k, a] of agents) {
          if (agents.size < MAX_AGENTS) break
          if (Object.keys(a.sockets).length > 0 || Object.keys(a.requests).length > 0) continue
          a.destroy()
          agents.delete(k)
        }
      }
      agents.set(key, agent)
      return agent
    },
    close() {
      for (const agent of agents.values()) agent.destroy()
      agents.clear()
    },
  }
}

/** jsonb holds no NUL; everything else is kept. */
const storable = (text: string) => text.replace(/\0/g, '')

export async function attempt(
  target: { url: string; headers: Record<string, string>; body: string },
  policy: Policy,
  timeoutMs: number,
  options: {
    signal?: AbortSignal
    connections?: Connections
    /** Who shares connections: the worker passes the endpoint, so one endpoint never waits for another's. */
    scope?: string
    /** How names resolve (default: the system's resolver). */
    lookup?: Lookup
  } = {},
): Promise<AttemptResult> {
  const started = performance.now()
  const done = (status: number | null, body: string, error: string | null): AttemptResult => ({
    ok: status !== null && status >= 200 && status < 300,
    status,
    durationMs: Math.round(performance.now() - started),
    body: storable(body),
    error: error === null ? null : storable(error),
  })
  const problem = urlProblem(target.url, policy)
  if (problem !== undefined) return done(null, '', `the URL ${problem}`)
  const url = new URL(target.url)
  // The timeout covers the name's resolution too, so an attempt never outlives its claim's lease (an
  // address literal needs no resolution, nor a timer).
  let expired: NodeJS.Timeout | undefined
  const resolved =
    isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) !== 0
      ? await resolveDestination(url, policy)
      : await Promise.race([
          resolveDestination(url, policy, options.lookup),
          new Promise<{ unresolved: string }>((resolve) => {
            expired = setTimeout(
              () => resolve({ unresolved: `${url.hostname} did not resolve within ${timeoutMs} ms` }),
              timeoutMs,
            )
          }),
        ]).finally(() => clearTimeout(expired))
  if ('refused' in resolved) return done(null, '', `refused: ${resolved.refused}`)
  if ('unresolved' in resolved) return done(null, '', resolved.unresolved)
  const send = url.protocol === 'https:' ? https.request : http.request
  const agent = options.connections?.agent(options.scope ?? '', url, resolved)
  return new Promise<AttemptResult>((resolve) => {
    let settled = false
    let request: http.ClientRequest | undefined
    const finish = (result: AttemptResult, keep = false) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', stop)
      // A response read to its end leaves the connection to the pool; anything else closes it.
      if (!keep) request?.destroy()
      resolve(result)
    }
    const timer = setTimeout(() => finish(done(null, '', `no answer within ${timeoutMs} ms`)), timeoutMs)
    // One signal may stop many attempts; a listener costs less than a signal handed to each request.
    const stop = () => finish(done(null, '', 'stopped'))
    options.signal?.addEventListener('abort', stop)
    const post = (retried: boolean) => {
      request = send(url, {
        method: 'POST',
        lookup: pinnedLookup(resolved),
        ...(agent !== undefined ? { agent } : {}),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(target.body),
          'user-agent': 'procurement-webhooks',
          ...target.headers,
        },
      })
      const sent = request
      sent.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed as it was reused: sent again once, on a new one.
        if (!retried && !settled && sent.reusedSocket && error.code === 'ECONNRESET') return post(true)
        finish(done(null, '', error.code !== undefined ? `${error.code}: ${error.message}` : error.message))
      })
      sent.on('response', (response) => {
        const chunks: Buffer[] = []
        let size = 0
        const complete = (keep: boolean) =>
          finish(
            done(
              response.statusCode ?? null,
              Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8'),
              null,
            ),
            keep,
          )
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_BODY_BYTES) chunks.push(chunk)
          size += chunk.length
          if (size >= RESPONSE_BODY_BYTES) complete(false)
        })
        response.on('end', () => complete(true))
        response.on('error', () => complete(false))
      })
      sent.end(target.body)
    }
    if (options.signal?.aborted === true) stop()
    else post(false)
  })
}
