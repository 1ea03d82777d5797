/**
 * Periodic housekeeping, a minute after start (not at once: the embedded database has one session, and
 * the first requests should not wait behind a VACUUM) and then every `intervalMs`:
 * - on every engine, rows whose time is up are deleted: idempotency keys past 24 h, revocations of tokens
 *   that have expired anyway, rate-limit windows older than an hour; events and finished webhook deliveries
 *   older than 30 days, a thousand rows per statement, so no statement holds locks for long;
 * - on the embedded engine, VACUUM (ANALYZE). PGlite runs PostgreSQL as a single process with no autovacuum
 *   worker, so without this its statistics stay those of an empty database and the planner keeps choosing
 *   sequential scans as tables grow (a 1,000-user batch got slower with every batch). PostgreSQL proper
 *   vacuums and analyses on its own.
 */
import { sql } from 'kysely'
import type { Database } from './database.ts'

export const MAINTENANCE_INTERVAL_MS = 10 * 60_000

export async function vacuumAnalyze(database: Database): Promise<void> {
  await sql`VACUUM (ANALYZE)`.execute(database.db)
}

export const EVENT_RETENTION_DAYS = 30
const PURGE_BATCH = 1000

/** Deletes events and finished deliveries older than the retention, in small batches; returns how many events. */
export async function purgeOldEvents(database: Database, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - EVENT_RETENTION_DAYS * 86400_000)
  let events = 0
  for (;;) {
    const result = await sql`
      DELETE FROM events WHERE (tenant_id, xid, seq) IN (
        SELECT tenant_id, xid, seq FROM events WHERE created_at < ${cutoff} LIMIT ${PURGE_BATCH})`.execute(database.db)
    const deleted = Number(result.numAffectedRows ?? 0)
    events += deleted
    if (deleted < PURGE_BATCH) break
  }
  for (;;) {
    const result = await sql`
      DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries
        WHERE status <> 'pending' AND created_at < ${cutoff} LIMIT ${PURGE_BATCH})`.execute(database.db)
    if (Number(result.numAffectedRows ?? 0) < PURGE_BATCH) break
  }
  return events
}

/**
 * Folds the kept counts that sessions wrote in rows of their own (row counts, migration 0010; pending counts,
 * migration 0009) into slot 0, a thousand rows per statement, so a count stays a sum of a few rows. Rows a
 * session holds locked (its transaction is writing them) are skipped, so this never waits on a writer, and a
 * writer waits at most for one such statement; slot-0 rows are taken in key order, so two processes folding
 * at once cannot deadlock. Returns how many rows were folded.
 */
export async function foldKeptCounts(database: Database): Promise<number> {
  let folded = 0
  for (const [table, key] of [
    ['row_counts', ['tenant_id', 'table_name']],
    ['pending_counts', ['tenant_id', 'user_id', 'kind']],
    ['pending_location_counts', ['tenant_id', 'location_id']],
  ] as const) {
    const columns = sql.join(key.map((c) => sql.ref(c)))
    for (;;) {
      const result = await sql<{ n: number }>`
        WITH taken AS (
          DELETE FROM ${sql.table(table)} WHERE (${columns}, slot) IN (
            SELECT ${columns}, slot FROM ${sql.table(table)} WHERE slot <> 0
            LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)
          RETURNING ${columns}, n),
        folded AS (
          INSERT INTO ${sql.table(table)} AS c (${columns}, slot, n)
          SELECT ${columns}, 0, sum(n) FROM taken GROUP BY ${columns} ORDER BY ${columns}
          ON CONFLICT (${columns}, slot) DO UPDATE SET n = c.n + EXCLUDED.n)
        SELECT count(*)::int AS n FROM taken`.execute(database.db)
      const taken = result.rows[0]?.n ?? 0
      folded += taken
      if (taken < PURGE_BATCH) break
    }
  }
  return folded
}

export async function purgeExpired(database: Database, now = new Date()): Promise<void> {
  await purgeOldEvents(database, now)
  await foldKeptCounts(database)
  const { db } = database
  await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).execute()
  await db.deleteFrom('token_revocations').where('expires_at', '<', now).execute()
  await db
    .deleteFrom('rate_limit_windows')
    .where('window_start', '<', new Date(now.getTime() - 3600_000))
    .execute()
}

async function housekeeping(database: Database): Promise<void> {
  await purgeExpired(database)
  if (database.engine === 'pglite') await vacuumAnalyze(database)
}

const FIRST_ROUND_AFTER_MS = 60_000

/**
 * Starts periodic housekeeping; returns a stop function that waits for a round in progress. `afterRound` is
 * called when a round has ended, failed or not (the server re-arms its idle memory release with it).
 */
export function startMaintenance(
  database: Database,
  log: { error(obj: object, msg: string): void },
  intervalMs = MAINTENANCE_INTERVAL_MS,
  afterRound: () => void = () => {},
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve()
  let repeat: NodeJS.Timeout | undefined
  const round = () => {
    running = running
      .then(() => housekeeping(database))
      .catch((error: unknown) => log.error({ err: error }, 'maintenance failed'))
      .finally(afterRound)
  }
  const first = setTimeout(
    () => {
      round()
      repeat = setInterval(round, intervalMs)
      repeat.unref()
    },
    Math.min(FIRST_ROUND_AFTER_MS, intervalMs),
  )
  first.unref()
  return async () => {
    clearTimeout(first)
    clearInterval(repeat)
    await running
  }
}
