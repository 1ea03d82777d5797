/**
 * Headers every response carries: `nosniff` and no referrer (same-origin only on console pages); `no-store` on API and token
 * responses (they carry tenant data or credentials, which no cache may keep); on HTML pages a strict
 * Content-Security-Policy that also forbids framing. Browser integrations get CORS only for the origins
 * listed in `CORS_ORIGINS`; without it, no CORS headers at all.
 */
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

export const HTML_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

export async function securityHeaders(app: FastifyInstance, corsOrigins: string | undefined): Promise<void> {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff')
    const path = request.url
    // The console's own forms need the browser to send their real Origin (checked against CSRF), which it
    // sends only under a policy that allows a same-origin referrer; nothing leaves for another origin.
    reply.header('referrer-policy', path.startsWith('/console') ? 'same-origin' : 'no-referrer')
    if ((path.startsWith('/api/') || path.startsWith('/oauth/')) && !reply.hasHeader('cache-control')) {
      reply.header('cache-control', 'no-store')
    }
    if (/^text\/html/.test(String(reply.getHeader('content-type') ?? ''))) {
      reply.header('content-security-policy', HTML_CSP)
      reply.header('x-frame-options', 'DENY')
    }
    return payload
  })
  if (corsOrigins === undefined) return
  await app.register(cors, {
    origin: corsOrigins.split(',').map((origin) => origin.trim()),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'x-service-client', 'idempotency-key', 'if-match'],
    exposedHeaders: [
      'location',
      'etag',
      'link',
      'x-total-count',
      'retry-after',
      'ratelimit',
      'ratelimit-policy',
      'idempotent-replayed',
      'x-request-id',
    ],
    maxAge: 600,
  })
}
