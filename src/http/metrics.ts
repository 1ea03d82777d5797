/**
 * GET /metrics in Prometheus text format: request counts and latency histograms per route (the route's
 * pattern, not the raw URL, so ids do not explode the label set), plus the process's default metrics.
 * Like /healthz it needs no token: expose it to your scraper, not to the internet.
 *
 * In cluster mode (WORKERS > 1) every scrape reports the whole cluster, whichever worker it reaches: that
 * worker asks the primary, which gathers every serving worker's metrics (`getMetricsAsJSON`, over the
 * cluster's IPC: cluster.ts) and merges them with prom-client's `AggregatorRegistry.aggregate`, each metric
 * by its own rule:
 * - summed: http_requests_total and http_request_duration_seconds (every bucket, _sum and _count), and the
 *   default metrics that are amounts — CPU seconds, memory (resident, virtual, heap, external), open and
 *   maximum file descriptors, active handles, requests and resources, GC durations;
 * - nodejs_eventloop_lag_min_seconds is the least of the workers', …_max_seconds the greatest, and the other
 *   event-loop lag figures (…_seconds, _mean, _stddev, _p50, _p90, _p99) the average of the workers';
 * - nodejs_version_info is the first worker's (all run the same node);
 * - process_start_time_seconds is left out (each worker started at its own time).
 * Two gauges say who is in the sums: procurement_cluster_workers (WORKERS) and
 * procurement_cluster_workers_answered (the workers whose metrics arrived within GATHER_WITHIN_MS; one that
 * does not answer is left out rather than hang the scrape). If the primary does not answer within
 * ASK_WITHIN_MS the worker answers with its own metrics alone, and answered says 1.
 */
import type { FastifyInstance } from 'fastify'
import { AggregatorRegistry, collectDefaultMetrics, Gauge, Registry, type PrometheusContentType } from 'prom-client'
import { answerGathers, askPrimary, type Workers } from '../core/ipc.ts'
import { handedOff } from './mount.ts'
import type { RouteMetrics } from './route-metrics.ts'

/** A worker's question to the primary, and the primary's gather topic to the workers. */
const METRICS = 'procurement:metrics'
/** How long the primary waits for the workers' metrics. */
const GATHER_WITHIN_MS = 1000
/** How long a worker waits for the primary's answer (the gather, and the merge, with room to spare). */
const ASK_WITHIN_MS = 3000

/** Set in a cluster worker: its /metrics reports the whole cluster of `workers` workers. */
export interface ClusterMetrics {
  workers: number
}

/** Counts every request `app` answers in `routes`; one handed to a mounted app (http/mount.ts) is that app's to count. */
export function recordRequests(app: FastifyInstance, routes: RouteMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    if (handedOff(request)) return
    routes.record(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
  })
}

/**
 * GET /metrics on `app`: `routes` (as `recordRequests` counts them, on this app and those mounted on it) and the
 * default metrics; `extend` adds metrics of the modules (e.g. webhooks) to the registry.
 */
export function metrics(
  app: FastifyInstance,
  routes: RouteMetrics,
  cluster?: ClusterMetrics,
  extend?: (registry: Registry) => void,
): void {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  extend?.(registry)
  routes.register(registry)

  let scrape = () => registry.metrics()
  if (cluster !== undefined) {
    const stopAnswering = answerGathers(METRICS, () => registry.getMetricsAsJSON())
    app.addHook('onClose', async () => stopAnswering())
    scrape = async () => {
      const answer = await askPrimary({ type: METRICS }, ASK_WITHIN_MS)
      if (isMetricsAnswer(answer)) return answer.text
      // No primary to ask (gone, or too slow): this worker's own, and the gauges say it is one of n.
      return clusterText([await registry.getMetricsAsJSON()], cluster.workers)
    }
  }
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
    async (_request, reply) => reply.type(registry.contentType).send(await scrape()),
  )
}

interface MetricsAnswer {
  type: typeof METRICS
  text: string
}

const isMetricsAnswer = (answer: unknown): answer is MetricsAnswer =>
  typeof answer === 'object' &&
  answer !== null &&
  (answer as { type?: unknown }).type === METRICS &&
  typeof (answer as { text?: unknown }).text === 'string'

/** The workers' metrics (each one's `getMetricsAsJSON()`) merged by each metric's rule, and who is in them. */
async function clusterText(perWorker: unknown[], workers: number): Promise<string> {
  const answered = perWorker.filter((metrics) => Array.isArray(metrics))
  const merged = AggregatorRegistry.aggregate<PrometheusContentType>(answered)
  new Gauge({
    name: 'procurement_cluster_workers',
    help: 'Worker processes the cluster runs (WORKERS)',
    registers: [merged],
  }).set(workers)
  new Gauge({
    name: 'procurement_cluster_workers_answered',
    help: 'Workers whose metrics this scrape merges (one that does not answer in time is left out)',
    registers: [merged],
  }).set(answered.length)
  return merged.metrics()
}

/**
 * The primary's side: answers a worker's question for the cluster's metrics (gathers every worker's, merges
 * them); undefined for any other message. Scrapes that come while a gather is under way share it.
 */
export function metricsHost(): (message: unknown, workers: Workers) => Promise<MetricsAnswer> | undefined {
  let underWay: Promise<MetricsAnswer> | undefined
  return (message, workers) => {
    if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== METRICS)
      return undefined
    underWay ??= workers
      .gather(METRICS, GATHER_WITHIN_MS)
      .then((perWorker) => clusterText(perWorker, workers.count))
      .then((text) => ({ type: METRICS, text }) as const)
      .finally(() => {
        underWay = undefined
      })
    return underWay
  }
}
