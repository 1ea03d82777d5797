/**
 * HEAD is answered for every GET route, as GET answers it, without the body (RFC 9110 §9.3.2).
 *
 * Fastify's own way (`exposeHeadRoutes`) registers a HEAD route beside each of the 110 GET routes: a third
 * of the routes, and about a tenth of a start on PostgreSQL (docs/benchmarks.md, "Sixth pass"). Here a HEAD
 * request is routed to its GET route instead: `routeHeadAsGet` (Fastify's `rewriteUrl`, which runs just
 * before the router) names it GET, and `restoreHead`, the first `onRequest` hook, names it HEAD again, so
 * every hook, handler and log line after it sees the method the client sent. The response is the GET route's,
 * headers and all (Content-Length and ETag included); Node's own response object, made while the method was
 * still HEAD, sends no body. A HEAD on a path without a GET route is answered as that GET would be: 404, or
 * 405 naming the methods the path has.
 */
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'

const ROUTED_AS_GET = Symbol('HEAD routed as GET')

type Marked = IncomingMessage & { [ROUTED_AS_GET]?: true }

/** Fastify's `rewriteUrl`: the URL unchanged, a HEAD request marked and routed as GET. */
export function routeHeadAsGet(this: unknown, raw: Marked): string {
  if (raw.method === 'HEAD') {
    raw.method = 'GET'
    raw[ROUTED_AS_GET] = true
  }
  return raw.url ?? '/'
}

/**
 * The request's own method back, before any other hook runs (add it before every other `onRequest` hook).
 * What runs without hooks still sees GET: Fastify's `frameworkErrors` (a path that is not valid
 * percent-encoding, answered 400 without a body all the same) and `request.routeOptions.method`, the route's.
 */
export function restoreHead(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const raw: Marked = request.raw
    if (raw[ROUTED_AS_GET] === true) raw.method = 'HEAD'
    done()
  })
}
