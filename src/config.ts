/**
 * Settings, read once from the environment at start-up. A bad value stops start-up with a message that
 * names the variable; the returned object is frozen, so nothing can change it later.
 */
import net from 'node:net'
import path from 'node:path'
import { Type, type Static } from 'typebox'
import Value from 'typebox/value'

const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
)

const DURATION_PART = '[0-9]{1,9}(ms|s|m|h)'
const DURATION = `^${DURATION_PART}$`
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const

/** Milliseconds of a duration such as `5s` (its syntax is checked by the schema). */
export function durationMs(text: string): number {
  const match = /^([0-9]+)(ms|s|m|h)$/.exec(text.trim())
  if (match === null) throw new ConfigError(`Not a duration: ${text}`)
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]
}
/** One or more keys of at least 32 characters, separated by commas. */
const KEY_LIST = '^\\s*[^,\\s]{32,}(\\s*,\\s*[^,\\s]{32,})*\\s*$'

/** The environment variables the service reads, with their defaults. docs/configuration.md mirrors this. */
export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_MAX: Type.Integer({ minimum: 1, maximum: 500, default: 10 }),
  /** Worker processes behind one port (node:cluster), each with its own pool; more than 1 needs DATABASE_URL. */
  WORKERS: Type.Integer({ minimum: 1, maximum: 256, default: 1 }),
  DATABASE_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 5000 }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  BASE_DOMAIN: Type.Optional(Type.String({ pattern: '^[a-z0-9.-]+(:[0-9]+)?$' })),
  PUBLIC_URL: Type.Optional(
    Type.String({ pattern: '^https?://([a-zA-Z0-9.-]|\\{domain\\})+(:[0-9]+)?(/[^?#\\s]*)?$' }),
  ),
  CORS_ORIGINS: Type.Optional(Type.String({ pattern: '^https?://[^,\\s]+(,\\s*https?://[^,\\s]+)*$' })),
  API_AUDIENCE: Type.String({ minLength: 1, default: 'procurement-api' }),
  TOKEN_ISSUER: Type.String({ minLength: 1, default: 'procurement-service' }),
  TOKEN_SIGNING_KEY: Type.Optional(Type.String({ minLength: 32 })),
  SECRET_PEPPER: Type.Optional(Type.String({ minLength: 32 })),
  /** Comma-separated previous signing keys and peppers: they verify only (a rotation signs nobody out). */
  TOKEN_SIGNING_KEYS_PREVIOUS: Type.Optional(Type.String({ pattern: KEY_LIST })),
  SECRET_PEPPERS_PREVIOUS: Type.Optional(Type.String({ pattern: KEY_LIST })),
  TOKEN_FAILURES_PER_CLIENT: Type.Integer({ minimum: 1, default: 10 }),
  TOKEN_FAILURES_PER_ADDRESS: Type.Integer({ minimum: 1, default: 30 }),
  TOKEN_FAILURE_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86400, default: 300 }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 0, default: 6000 }),
  RATE_LIMIT_SYNC_MS: Type.Integer({ minimum: 50, maximum: 60000, default: 1000 }),
  LOG_LEVEL: Type.Union([LogLevel], { default: 'info' }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 104857600, default: 1048576 }),
  /** A client has this long to send a request's headers, and REQUEST_TIMEOUT_SECONDS for all of it; then 408. */
  HEADERS_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 600, default: 10 }),
  REQUEST_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 600, default: 30 }),
  /** `false`, a hop count (`1`: one reverse proxy) or a comma-separated list of proxy addresses/CIDRs. */
  TRUST_PROXY: Type.String({ minLength: 1, maxLength: 2000, default: 'false' }),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.String({ minLength: 3, default: 'procurement@localhost' }),
  /** Unset: seed on the embedded database only; with DATABASE_URL the demo tenant is made only on request. */
  DEMO_SEED: Type.Optional(Type.Boolean()),
  SESSION_IDLE_MINUTES: Type.Integer({ minimum: 1, maximum: 10080, default: 60 }),
  SESSION_MAX_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 12 }),
  /** Webhook endpoints may use http:// (otherwise https:// only). */
  WEBHOOK_ALLOW_HTTP: Type.Boolean({ default: false }),
  /** Webhook endpoints may resolve to loopback, private, link-local or metadata addresses. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: Type.Boolean({ default: false }),
  /** A single sign-on issuer may use http:// (a provider on the same host, or tests); otherwise https:// only. */
  SSO_ALLOW_HTTP_ISSUER: Type.Boolean({ default: false }),
  /** How long a webhook receiver has to answer: a duration such as `10s`, `500ms`, `1m`. */
  WEBHOOK_TIMEOUT: Type.String({ pattern: DURATION, default: '10s' }),
  /** The waits before each retry of a failed delivery, comma-separated durations. */
  WEBHOOK_RETRY_SCHEDULE: Type.String({
    pattern: `^\\s*${DURATION_PART}(\\s*,\\s*${DURATION_PART})*\\s*$`,
    default: '5s,5m,30m,2h,5h,10h,10h',
  }),
  /** The largest attachment accepted, in bytes (docs/attachments.md). */
  ATTACHMENT_MAX_BYTES: Type.Integer({ minimum: 1, maximum: 1073741824, default: 26214400 }),
  /** Where attachments' bytes live: `database` (default) or `s3` (any S3-compatible store, S3_* below). */
  ATTACHMENT_STORE: Type.Union([Type.Literal('database'), Type.Literal('s3')], { default: 'database' }),
  S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  S3_BUCKET: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9._-]{3,63}$' })),
  S3_REGION: Type.String({ minLength: 1, maxLength: 50, default: 'us-east-1' }),
  S3_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  S3_FORCE_PATH_STYLE: Type.Boolean({ default: false }),
  /** ClamAV's clamd, over TCP (CLAMAV_HOST, CLAMAV_PORT) or a Unix socket (CLAMAV_SOCKET): every upload is scanned. */
  CLAMAV_HOST: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  CLAMAV_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 3310 }),
  CLAMAV_SOCKET: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
})

export type Env = Static<typeof EnvSchema>

export interface Config extends Env {
  /** Absolute path of the embedded database's folder (used only without DATABASE_URL). */
  readonly dataDir: string
  /** Whether to seed the demo tenant into an empty database: DEMO_SEED, else only on the embedded engine. */
  readonly demoSeed: boolean
  /** TRUST_PROXY parsed: trust nothing, the nearest `n` hops, or the proxies at these addresses/CIDRs. */
  readonly trustProxy: TrustProxy
  /** WEBHOOK_TIMEOUT in milliseconds. */
  readonly webhookTimeoutMs: number
  /** WEBHOOK_RETRY_SCHEDULE: the wait before each retry, in milliseconds. */
  readonly webhookRetryMs: readonly number[]
}

export type TrustProxy = false | number | readonly string[]

/** The names proxy-addr (Fastify's) knows for address ranges, besides addresses and CIDRs. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

function validProxyEntry(entry: string): boolean {
  if (RANGE_NAMES.has(entry) || net.isIP(entry) !== 0) return true
  const match = /^([^/]+)\/(\d{1,3})$/.exec(entry)
  if (match === null) return false
  const version = net.isIP(match[1]!)
  return version !== 0 && Number(match[2]) <= (version === 4 ? 32 : 128)
}

/**
 * TRUST_PROXY. `true` is refused: it trusts every X-Forwarded-For entry, the left-most of which the client
 * writes, so a client could pose as any address (and dodge every per-address brake).
 */
function parseTrustProxy(raw: string): TrustProxy {
  const value = raw.trim().toLowerCase()
  if (value === 'false' || value === '0') return false
  if (value === 'true') {
    throw new ConfigError(
      'Invalid configuration:\n  TRUST_PROXY=true is refused: it would trust X-Forwarded-For entries the client writes. ' +
        'Set the number of proxies in front of the service (TRUST_PROXY=1 for one reverse proxy) ' +
        'or their addresses (TRUST_PROXY=10.0.0.5,10.1.0.0/16).',
    )
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    if (hops > 16) throw new ConfigError('Invalid configuration:\n  TRUST_PROXY: a hop count is at most 16')
    return hops
  }
  const entries = value.split(',').map((entry) => entry.trim())
  const bad = entries.filter((entry) => !validProxyEntry(entry))
  if (bad.length > 0) {
    throw new ConfigError(
      'Invalid configuration:\n  TRUST_PROXY: each entry must be an IP address, a CIDR (10.0.0.0/8) or loopback, ' +
        `linklocal, uniquelocal; ${bad.length} ${bad.length === 1 ? 'is' : 'are'} not`,
    )
  }
  return Object.freeze(entries)
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Parses `env` (default: the process environment); throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Readonly<Config> {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, raw))
  const errors = Value.Errors(EnvSchema, converted)
  if (errors.length > 0) {
    // Names and rules only, never values: a bad value may well be a secret or a URL with a password.
    const lines = errors.map((e) => `  ${e.instancePath.replace(/^\//, '') || 'environment'}: ${e.message}`)
    throw new ConfigError(`Invalid configuration:\n${[...new Set(lines)].join('\n')}`)
  }
  const parsed = converted as Env
  if (parsed.DATABASE_URL !== undefined) {
    for (const name of ['TOKEN_SIGNING_KEY', 'SECRET_PEPPER'] as const) {
      if (parsed[name] === undefined) {
        throw new ConfigError(
          `Invalid configuration:\n  ${name} is required when DATABASE_URL is set (at least 32 characters, the same on every node)`,
        )
      }
    }
  }
  if (durationMs(parsed.WEBHOOK_TIMEOUT) < 100)
    throw new ConfigError('Invalid configuration:\n  WEBHOOK_TIMEOUT: must be at least 100ms')
  const demoSeed = parsed.DEMO_SEED ?? parsed.DATABASE_URL === undefined
  if (parsed.HEADERS_TIMEOUT_SECONDS > parsed.REQUEST_TIMEOUT_SECONDS) {
    throw new ConfigError(
      'Invalid configuration:\n  HEADERS_TIMEOUT_SECONDS must not exceed REQUEST_TIMEOUT_SECONDS (the headers are part of the request)',
    )
  }
  const trustProxy = parseTrustProxy(parsed.TRUST_PROXY)
  if (parsed.ATTACHMENT_STORE === 's3') {
    const needed = ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const
    const missing = needed.filter((n) => parsed[n] === undefined)
    if (missing.length > 0)
      throw new ConfigError(
        `Invalid configuration:\n  ATTACHMENT_STORE=s3 needs ${missing.join(', ')} (and S3_ENDPOINT for a store other than AWS)`,
      )
  }
  if (parsed.CLAMAV_HOST !== undefined && parsed.CLAMAV_SOCKET !== undefined)
    throw new ConfigError('Invalid configuration:\n  set CLAMAV_HOST or CLAMAV_SOCKET, not both')
  return Object.freeze({
    ...parsed,
    dataDir: path.resolve(parsed.DATA_DIR),
    demoSeed,
    trustProxy,
    webhookTimeoutMs: durationMs(parsed.WEBHOOK_TIMEOUT),
    webhookRetryMs: Object.freeze(parsed.WEBHOOK_RETRY_SCHEDULE.split(',').map(durationMs)),
  })
}
