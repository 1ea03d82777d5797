/**
 * The server's secrets: the key that signs access tokens and the pepper under which client secrets are
 * hashed, each with the previous ones that still verify after a rotation (DECISIONS, "Operations").
 *
 * With PostgreSQL they come from TOKEN_SIGNING_KEY / TOKEN_SIGNING_KEYS_PREVIOUS and SECRET_PEPPER /
 * SECRET_PEPPERS_PREVIOUS (config insists on the current ones), so every node shares them. With the embedded
 * database they default to random values made once and kept, readable only by the owner, in
 * DATA_DIR/secrets.json; `procurement keys rotate` replaces them and keeps the old ones as previous.
 *
 * The key file is never silently replaced: a missing file next to an existing database, or an empty or
 * unreadable one, stops start-up with one line (new keys would lock out every client secret and token).
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { OperatorError } from './core/operator-error.ts'
import type { Config } from './config.ts'

export interface ServerKeys {
  /** Signs new tokens (and verifies them). */
  readonly signingKey: Uint8Array
  /** Verify only: tokens signed before a rotation keep working until they expire. */
  readonly previousSigningKeys?: readonly Uint8Array[]
  /** Hashes client secrets. */
  readonly pepper: Buffer
  /** A secret hashed under one of these still verifies, and is then hashed again under `pepper`. */
  readonly previousPeppers?: readonly Buffer[]
}

export interface StoredSecrets {
  token_signing_key: string
  secret_pepper: string
  previous_token_signing_keys?: string[]
  previous_secret_peppers?: string[]
  rotated_at?: string
}

const MIN_LENGTH = 32
/** The folder PGlite's files live in (db/data-dir.ts names it too; keys may not import db). */
const PGDATA = 'pgdata'

export const keyFilePath = (dir: string): string => path.join(dir, 'secrets.json')

const RESTORE = 'restore it from a backup of DATA_DIR (procurement restore <file>) and run procurement check'

const isKey = (value: unknown): value is string => typeof value === 'string' && value.length >= MIN_LENGTH
const isKeyList = (value: unknown): value is string[] | undefined =>
  value === undefined || (Array.isArray(value) && value.every(isKey))

/** The stored keys, or undefined when there is no key file; throws OperatorError for a damaged one. */
export function readStored(dir: string): StoredSecrets | undefined {
  const file = keyFilePath(dir)
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new OperatorError(
      `The key file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): fix its owner and mode (0600), or ${RESTORE}.`,
    )
  }
  if (text.trim() === '')
    throw new OperatorError(`The key file ${file} is empty: ${RESTORE}. New keys would lock out every client.`)
  let stored: unknown
  try {
    stored = JSON.parse(text)
  } catch {
    throw new OperatorError(`The key file ${file} is not valid JSON: ${RESTORE}. New keys would lock out every client.`)
  }
  const s = stored as Partial<Record<keyof StoredSecrets, unknown>> | null
  if (
    typeof s !== 'object' ||
    s === null ||
    !isKey(s.token_signing_key) ||
    !isKey(s.secret_pepper) ||
    !isKeyList(s.previous_token_signing_keys) ||
    !isKeyList(s.previous_secret_peppers)
  ) {
    throw new OperatorError(
      `The key file ${file} lacks token_signing_key or secret_pepper (each at least ${MIN_LENGTH} characters): ${RESTORE}.`,
    )
  }
  return s as StoredSecrets
}

/** Writes DATA_DIR/secrets.json whole (mode 0600) or not at all. */
export function writeStored(dir: string, secrets: StoredSecrets): void {
  const file = keyFilePath(dir)
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const partial = `${file}.${process.pid}.partial`
  fs.writeFileSync(partial, JSON.stringify(secrets, null, 2), { mode: 0o600 })
  fs.renameSync(partial, file)
}

const newKey = () => randomBytes(32).toString('base64url')

function readOrCreate(dir: string): StoredSecrets {
  const stored = readStored(dir)
  if (stored !== undefined) return stored
  if (fs.existsSync(path.join(dir, PGDATA))) {
    throw new OperatorError(
      `The key file ${keyFilePath(dir)} is missing, but ${path.join(dir, PGDATA)} holds a database: ${RESTORE}, or set TOKEN_SIGNING_KEY and SECRET_PEPPER to the keys it was made with. New keys would lock out every client.`,
    )
  }
  const secrets: StoredSecrets = { token_signing_key: newKey(), secret_pepper: newKey() }
  writeStored(dir, secrets)
  return secrets
}

/** A comma-separated list of keys from the environment (config has checked each is long enough). */
const listOf = (text: string | undefined): string[] =>
  text === undefined
    ? []
    : text
        .split(',')
        .map((key) => key.trim())
        .filter((key) => key !== '')

export function serverKeys(config: Config): ServerKeys {
  let signing = config.TOKEN_SIGNING_KEY
  let pepper = config.SECRET_PEPPER
  const previousSigning = listOf(config.TOKEN_SIGNING_KEYS_PREVIOUS)
  const previousPeppers = listOf(config.SECRET_PEPPERS_PREVIOUS)
  if (signing === undefined || pepper === undefined) {
    const stored = readOrCreate(config.dataDir)
    if (signing === undefined) {
      signing = stored.token_signing_key
      previousSigning.push(...(stored.previous_token_signing_keys ?? []))
    }
    if (pepper === undefined) {
      pepper = stored.secret_pepper
      previousPeppers.push(...(stored.previous_secret_peppers ?? []))
    }
  }
  const bytes = (key: string) => new TextEncoder().encode(key)
  return Object.freeze({
    signingKey: bytes(signing),
    previousSigningKeys: Object.freeze(previousSigning.filter((key) => key !== signing).map(bytes)),
    pepper: Buffer.from(pepper, 'utf8'),
    previousPeppers: Object.freeze(previousPeppers.filter((p) => p !== pepper).map((p) => Buffer.from(p, 'utf8'))),
  })
}

/**
 * `procurement keys rotate`: a new signing key and pepper in DATA_DIR/secrets.json; the current ones become
 * the first previous ones (verify only). `forget` drops the previous ones instead (after every token signed
 * under them has expired and every application has asked for a token since). The server reads the file at
 * start: restart it to sign with the new key.
 */
export function rotateStoredKeys(dir: string, what: { forget?: boolean } = {}): StoredSecrets {
  const stored = readStored(dir)
  if (stored === undefined) throw new OperatorError(`There is no key file ${keyFilePath(dir)} to rotate.`)
  const next: StoredSecrets = what.forget
    ? { token_signing_key: stored.token_signing_key, secret_pepper: stored.secret_pepper }
    : {
        token_signing_key: newKey(),
        secret_pepper: newKey(),
        previous_token_signing_keys: [stored.token_signing_key, ...(stored.previous_token_signing_keys ?? [])],
        previous_secret_peppers: [stored.secret_pepper, ...(stored.previous_secret_peppers ?? [])],
      }
  writeStored(dir, { ...next, rotated_at: new Date().toISOString() })
  return next
}
