/**
 * The cluster supervisor (src/cluster.ts) with workers that cannot start: run as a primary, it forks this
 * same file as its workers, which report a start failure and exit. Prints what `procurement serve` would.
 */
import cluster from 'node:cluster'
import { START_FAILED_MESSAGE, startCluster } from '../../src/cluster.ts'

if (cluster.isPrimary) {
  const line = (level: string) => (obj: object, msg: string) => console.log(JSON.stringify({ level, ...obj, msg }))
  startCluster({
    workers: 2,
    listen: { host: '127.0.0.1', port: 0 },
    graceMs: 5000,
    log: { info: line('info'), warn: line('warn'), error: line('error') },
  }).then(
    () => console.log('all workers listening'),
    (error: Error) => {
      console.error(`procurement: ${error.message}`)
      process.exit(1)
    },
  )
} else {
  const error = { name: 'DatabaseStartError', message: `Cannot start worker ${process.pid}: no database.` }
  process.send!({ type: START_FAILED_MESSAGE, error }, undefined, {}, () => process.exit(1))
}
