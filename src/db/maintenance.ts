/**
 * The embedded database has no autovacuum worker (PGlite runs PostgreSQL as a single process), so without
 * help its statistics stay those of an empty database, and the planner keeps choosing sequential scans as
 * tables grow (a 1,000-user batch got slower with every batch). Here the service vacuums and analyses it
 * itself: once at start and then every `intervalMs`. PostgreSQL proper does this on its own.
 */
import { sql } from 'kysely'
import type { Database } from './database.ts'

export const MAINTENANCE_INTERVAL_MS = 10 * 60_000

export async function vacuumAnalyze(database: Database): Promise<void> {
  await sql`VACUUM (ANALYZE)`.execute(database.db)
}

/** Starts periodic maintenance for the embedded engine (nothing for PostgreSQL); returns a stop function. */
export function startMaintenance(database: Database, log: { error(obj: object, msg: string): void }, intervalMs = MAINTENANCE_INTERVAL_MS): () => Promise<void> {
  if (database.engine !== 'pglite') return async () => {}
  let running: Promise<unknown> = vacuumAnalyze(database).catch((error: unknown) => log.error({ err: error }, 'maintenance failed'))
  const timer = setInterval(() => {
    running = running.then(() => vacuumAnalyze(database)).catch((error: unknown) => log.error({ err: error }, 'maintenance failed'))
  }, intervalMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
