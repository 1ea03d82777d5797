/**
 * Settings, read once from the environment at start-up. A bad value stops start-up with a message that
 * names the variable; the returned object is frozen, so nothing can change it later.
 */
import path from 'node:path'
import { Type, type Static } from 'typebox'
import Value from 'typebox/value'

const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
)

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
  TRUST_PROXY: Type.Boolean({ default: false }),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.String({ minLength: 3, default: 'procurement@localhost' }),
  /** Unset: seed on the embedded database only; with DATABASE_URL the demo tenant is made only on request. */
  DEMO_SEED: Type.Optional(Type.Boolean()),
  SESSION_IDLE_MINUTES: Type.Integer({ minimum: 1, maximum: 10080, default: 60 }),
  SESSION_MAX_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 12 }),
})

export type Env = Static<typeof EnvSchema>

export interface Config extends Env {
  /** Absolute path of the embedded database's folder (used only without DATABASE_URL). */
  readonly dataDir: string
  /** Whether to seed the demo tenant into an empty database: DEMO_SEED, else only on the embedded engine. */
  readonly demoSeed: boolean
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
  const demoSeed = parsed.DEMO_SEED ?? parsed.DATABASE_URL === undefined
  return Object.freeze({ ...parsed, dataDir: path.resolve(parsed.DATA_DIR), demoSeed })
}
