/**
 * The capture of the SQL the service runs for one request, so that the floor (bench/floor/server.ts) replays
 * exactly that, and the spec file the floor reads.
 */
import fs from 'node:fs'
import path from 'node:path'
import { buildApp } from '../../src/app.ts'
import type { Database } from '../../src/db/database.ts'
import type { FloorSpec, Statement } from '../floor/spec.ts'
import { scratchDir } from './cleanup.ts'
import { configFor, type Store } from './store.ts'

export interface Captured {
  statements: Statement[]
  status: number
  body: string
}

/**
 * The statements the service runs for one request in steady state: the app is built in this process on the
 * recording database with the server's configuration, the request is made twice (the first may do one-off
 * work, such as a token's last-used stamp), and the second one's statements are kept.
 */
export async function captureRequest(
  recorded: { database: Database; log: Statement[] },
  store: Store,
  request: { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; body?: string },
): Promise<Captured> {
  // The rate limiter's once-a-second sync is not per request; off here so it cannot fall into the window.
  const { config, keys } = configFor(store, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' })
  const app = await buildApp({ config, database: recorded.database, keys })
  try {
    const inject = () =>
      app.inject({
        method: request.method,
        url: request.url,
        headers: request.headers,
        ...(request.body !== undefined ? { payload: request.body } : {}),
      })
    await inject()
    recorded.log.length = 0
    const response = await inject()
    const statements = [...recorded.log]
    if (response.statusCode >= 300)
      throw new Error(`capture: ${request.url} answered ${response.statusCode}: ${response.body}`)
    return { statements, status: response.statusCode, body: response.body }
  } finally {
    await app.close()
  }
}

/** The SQL a direct call makes (to find it among a request's statements). */
export async function statementsOf(recorded: { log: Statement[] }, call: () => Promise<unknown>): Promise<Statement[]> {
  recorded.log.length = 0
  await call()
  const statements = [...recorded.log]
  recorded.log.length = 0
  return statements
}

/** The index of `wanted` (same SQL text) in `statements`; an error that says what changed if it is absent. */
export function indexOf(statements: readonly Statement[], wanted: Statement, what: string): number {
  const index = statements.findIndex((s) => s.sql === wanted.sql)
  if (index < 0)
    throw new Error(
      `the service no longer runs the ${what} statement for this request; the request ran:\n${statements.map((s) => s.sql).join('\n')}`,
    )
  return index
}

/** JSON for a floor spec file: Buffers and Dates survive as tagged values. */
export function writeSpec(label: string, spec: FloorSpec): string {
  const file = path.join(scratchDir(`floor-${label}`), 'spec.json')
  fs.writeFileSync(
    file,
    JSON.stringify(spec, function (this: Record<string, unknown>, key, value: unknown) {
      const raw = this[key]
      if (Buffer.isBuffer(raw)) return { $buffer: raw.toString('base64') }
      if (raw instanceof Date) return { $date: raw.toISOString() }
      return value
    }),
  )
  return file
}
