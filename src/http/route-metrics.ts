/**
 * Request counts and latencies per route, counted on every request and read by prom-client's registry on a
 * scrape. prom-client's own Counter and Histogram validate and hash their label set on every `inc` and
 * `observe`: about 6 % of the server's CPU on the vendor list. Here a request finds its route's entry in
 * two Map look-ups and adds to plain numbers; the label sets are built only when a scrape asks. The
 * samples have prom-client's names, labels and shape (`getMetricsAsJSON`), so its registry prints them and
 * `AggregatorRegistry.aggregate` sums them across cluster workers like its own metrics.
 */
import type { Metric, Registry } from 'prom-client'

/** Upper bounds of the latency buckets, in seconds. */
export const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const

interface RouteEntry {
  method: string
  route: string
  /** Answers by status code. */
  statuses: Map<number, number>
  count: number
  sum: number
  /** Observations per bucket (not yet cumulative); one past the last bound for the rest. */
  buckets: number[]
}

/** One sample as prom-client's registry reads it (`getMetricsAsJSON`'s shape). */
interface Sample {
  labels: Record<string, string | number>
  value: number
  metricName?: string
}

export class RouteMetrics {
  readonly #byMethod = new Map<string, Map<string, RouteEntry>>()

  /** One answered request: its method, route pattern, status code and duration in seconds. */
  record(method: string, route: string, status: number, seconds: number): void {
    let routes = this.#byMethod.get(method)
    if (routes === undefined) this.#byMethod.set(method, (routes = new Map<string, RouteEntry>()))
    let entry = routes.get(route)
    if (entry === undefined) {
      entry = {
        method,
        route,
        statuses: new Map(),
        count: 0,
        sum: 0,
        buckets: new Array<number>(BUCKETS.length + 1).fill(0),
      }
      routes.set(route, entry)
    }
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1)
    entry.count += 1
    entry.sum += seconds
    let bucket = 0
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++
    entry.buckets[bucket]! += 1
  }

  /** Registers `http_requests_total` and `http_request_duration_seconds` with `registry`. */
  register(registry: Registry): void {
    const reset = () => this.#byMethod.clear()
    const entries = () => [...this.#byMethod.values()].flatMap((routes) => [...routes.values()])
    registry.registerMetric(
      metric(
        'http_requests_total',
        'HTTP requests answered, by method, route and status',
        'counter',
        () =>
          entries().flatMap(({ method, route, statuses }) =>
            [...statuses].map(([status, value]) => ({ labels: { method, route, status: String(status) }, value })),
          ),
        reset,
      ),
    )
    const name = 'http_request_duration_seconds'
    registry.registerMetric(
      metric(
        name,
        'Time to answer, by method and route',
        'histogram',
        () =>
          entries().flatMap(({ method, route, count, sum, buckets }) => {
            let cumulative = 0
            const samples: Sample[] = BUCKETS.map((le, i) => {
              cumulative += buckets[i]!
              return { labels: { le, method, route }, value: cumulative, metricName: `${name}_bucket` }
            })
            samples.push(
              { labels: { le: '+Inf', method, route }, value: count, metricName: `${name}_bucket` },
              { labels: { method, route }, value: sum, metricName: `${name}_sum` },
              { labels: { method, route }, value: count, metricName: `${name}_count` },
            )
            return samples
          }),
        reset,
      ),
    )
  }
}

/**
 * A metric as prom-client's registry reads it: `get()` gives the samples, summed across cluster workers. The
 * registry reads only name, help, type, aggregator, get and reset; prom-client's types know no such collector
 * (they name the four classes, and a numeric MetricType where the registry uses 'counter'), so `readByRegistry`
 * checks exactly those members instead.
 */
function metric(name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[], reset: () => void) {
  const read = () => ({ name, help, type, values: values(), aggregator: 'sum' })
  const collector = { name, help, type, aggregator: 'sum', get: () => Promise.resolve(read()), reset }
  if (!readByRegistry(collector)) throw new Error(`metric ${name} lacks what the registry reads`)
  return collector
}

/** Whether `value` has every member prom-client's registry uses of a metric (registerMetric, metrics()). */
function readByRegistry(value: object): value is Metric {
  const m = value as Partial<Record<'name' | 'help' | 'type' | 'aggregator' | 'get' | 'reset', unknown>>
  return (
    typeof m.name === 'string' &&
    typeof m.help === 'string' &&
    typeof m.type === 'string' &&
    typeof m.aggregator === 'string' &&
    typeof m.get === 'function' &&
    typeof m.reset === 'function'
  )
}
