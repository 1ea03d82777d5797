/**
 * One delivery attempt: the destination checked again (scheme, then every address its name resolves to
 * now), a signed POST to the checked address, and what came back. Success is a 2xx within the timeout;
 * redirects are not followed (a 3xx is a failure like any other non-2xx).
 */
import http from 'node:http'
import https from 'node:https'
import { pinnedLookup, resolveDestination, urlProblem, type Policy } from './destinations.ts'

export const RESPONSE_BODY_BYTES = 1024

export interface AttemptResult {
  ok: boolean
  status: number | null
  durationMs: number
  body: string
  error: string | null
}

/** jsonb holds no NUL; everything else is kept. */
const storable = (text: string) => text.replace(/\0/g, '')

export async function attempt(
  target: { url: string; headers: Record<string, string>; body: string },
  policy: Policy,
  timeoutMs: number,
  signal?: AbortSignal,
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
  // The timeout covers the name's resolution too, so an attempt never outlives its claim's lease.
  let expired: NodeJS.Timeout | undefined
  const resolved = await Promise.race([
    resolveDestination(url, policy),
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
  return new Promise<AttemptResult>((resolve) => {
    let settled = false
    const finish = (result: AttemptResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      request.destroy()
      resolve(result)
    }
    const request = send(url, {
      method: 'POST',
      lookup: pinnedLookup(resolved),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(target.body),
        'user-agent': 'procurement-webhooks',
        ...target.headers,
      },
      ...(signal !== undefined ? { signal } : {}),
    })
    const timer = setTimeout(() => finish(done(null, '', `no answer within ${timeoutMs} ms`)), timeoutMs)
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish(done(null, '', error.code !== undefined ? `${error.code}: ${error.message}` : error.message)),
    )
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      let size = 0
      const complete = () =>
        finish(
          done(
            response.statusCode ?? null,
            Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8'),
            null,
          ),
        )
      response.on('data', (chunk: Buffer) => {
        if (size < RESPONSE_BODY_BYTES) chunks.push(chunk)
        size += chunk.length
        if (size >= RESPONSE_BODY_BYTES) complete()
      })
      response.on('end', complete)
      response.on('error', complete)
    })
    request.end(target.body)
  })
}
