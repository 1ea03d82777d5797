/**
 * GET /metrics in Prometheus text format: request counts and latency histograms per route (the route's
 * pattern, not the raw URL, so ids do not explode the label set), plus the process's default metrics.
 * Like /healthz it needs no token: expose it to your scraper, not to the internet.
 */
import type { FastifyInstance } from 'fastify'
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client'

export function metrics(app: FastifyInstance): void {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer, by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    requests.inc({ method: request.method, route, status: String(reply.statusCode) })
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000)
  })
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics',
        operationId: 'getMetrics',
        tags: ['operations'],
        produces: ['text/plain'],
        response: { 200: { type: 'string' } },
      },
    },
    async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  )
}
