/** Request ids: taken from a well-formed incoming `X-Request-Id`, otherwise made; echoed on every response. */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const WELL_FORMED = /^[A-Za-z0-9._:-]{1,64}$/

export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id']
  return typeof given === 'string' && WELL_FORMED.test(given) ? given : randomUUID()
}
