/** What /metrics says about webhooks: attempts by outcome (this process's), and the oldest due delivery's age. */
import type { Kysely } from 'kysely'
import { Counter, Gauge, type Registry } from 'prom-client'
import type { DB } from '../db/schema.ts'
import { oldestDueAgeSeconds } from './queue.repository.ts'

type Outcome = 'succeeded' | 'retrying' | 'failed'

const attempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt is scheduled), failed (none is)',
  labelNames: ['outcome'],
  registers: [],
})

export const deliveryMetrics = {
  record: (outcome: Outcome) => attempts.inc({ outcome }),
}

/** Adds the webhook metrics to a registry; the age is read from the database at each scrape. */
export function registerWebhookMetrics(registry: Registry, db: Kysely<DB>): void {
  registry.registerMetric(attempts)
  for (const outcome of ['succeeded', 'retrying', 'failed'] as const) attempts.inc({ outcome }, 0)
  new Gauge({
    name: 'webhook_oldest_due_seconds',
    help: 'Seconds the oldest due webhook delivery (of an enabled endpoint, not in flight) has waited; 0 when none',
    registers: [registry],
    aggregator: 'max',
    async collect() {
      this.set(await oldestDueAgeSeconds(db).catch(() => 0))
    },
  })
}
