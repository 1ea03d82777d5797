/**
 * The settings every benchmark shares: where the checkout is, numbers from the environment (BENCH_SECONDS,
 * BENCH_RUNS …), the PostgreSQL server scratch databases are made on, and the environment every benchmark
 * server gets (see docs/benchmarks.md).
 */
import path from 'node:path'

export const ROOT = path.resolve(import.meta.dirname, '../..')

/** A number from the environment, or the default. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number, not ${raw}`)
  return value
}

export const SECONDS = envNumber('BENCH_SECONDS', 10)
export const RUNS = envNumber('BENCH_RUNS', 3)
export const WARMUP_SECONDS = envNumber('BENCH_WARMUP_SECONDS', 3)
/** The admin connection: scratch databases are made on its server. */
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const POOL_MAX = envNumber('BENCH_POOL_MAX', 10)
/** The secrets both the server and the floor get (with PostgreSQL the server insists on them). */
export const SECRETS = {
  TOKEN_SIGNING_KEY: 'bench-token-signing-key-0123456789abcdef',
  SECRET_PEPPER: 'bench-secret-pepper-0123456789abcdef0123',
}
/** Multi-tenant mode, so one database can hold tenants of different sizes: `<domain>.bench.test` is a tenant. */
export const BASE_DOMAIN = 'bench.test'

/** The settings every benchmark server gets on top of the caller's (see docs/benchmarks.md). */
export function serverEnv(extra: Record<string, string>): Record<string, string> {
  const passed: Record<string, string> = {}
  // The cluster mode, where the server has it; ignored by one that does not.
  if (process.env.BENCH_WORKERS !== undefined) passed.WORKERS = process.env.BENCH_WORKERS
  // Node's own options for the server only (say, --heapsnapshot-signal=SIGUSR2 to look inside it).
  if (process.env.BENCH_NODE_OPTIONS !== undefined) passed.NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    DATABASE_POOL_MAX: String(POOL_MAX),
    ...SECRETS,
    ...passed,
    ...extra,
  }
}
