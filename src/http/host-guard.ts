/**
 * The request line and Host as RFC 9112 wants them: one Host header (two are a 400), and an absolute-form
 * target (`GET http://host/path`) only when its authority is the Host's (a different one is a 400), and a
 * Host that is a host name or address. Nothing
 * the service writes is built from Host, but a request that disagrees with itself is refused, not guessed at.
 */
import type { FastifyInstance } from 'fastify'
import { badRequest } from '../core/problem.ts'

/** A host name or IP literal with an optional port (RFC 3986 authority without user info). */
const HOST = /^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$/

export function hostGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const raw = request.raw
    let hosts = 0
    for (let i = 0; i < raw.rawHeaders.length; i += 2) if (raw.rawHeaders[i]!.toLowerCase() === 'host') hosts++
    if (hosts > 1) throw badRequest('The request has more than one Host header.')
    const host = raw.headers.host
    if (host !== undefined && !HOST.test(host)) throw badRequest('The Host header is not a valid host name.')
    const target = raw.url ?? '/'
    if (target.startsWith('/') || target === '*') return
    let authority: string
    try {
      authority = new URL(target).host
    } catch {
      throw badRequest('The request target is neither a path nor an absolute URL.')
    }
    if (authority.toLowerCase() !== (raw.headers.host ?? '').toLowerCase()) {
      throw badRequest('The request target names another host than the Host header.')
    }
  })
}
