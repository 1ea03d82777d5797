/**
 * The two server secrets: the key that signs access tokens and the pepper under which client secrets are
 * hashed. With PostgreSQL they come from TOKEN_SIGNING_KEY and SECRET_PEPPER (config insists), so every node
 * shares them. With the embedded database they default to random values made once and kept, readable only
 * by the owner, in DATA_DIR/secrets.json.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Config } from './config.ts'

export interface ServerKeys {
  readonly signingKey: Uint8Array
  readonly pepper: Buffer
}

interface StoredSecrets {
  token_signing_key: string
  secret_pepper: string
}

function readOrCreate(dir: string): StoredSecrets {
  const file = path.join(dir, 'secrets.json')
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as StoredSecrets
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const secrets: StoredSecrets = {
    token_signing_key: randomBytes(32).toString('base64url'),
    secret_pepper: randomBytes(32).toString('base64url'),
  }
  fs.mkdirSync(dir, { recursive: true })
  const partial = `${file}.${process.pid}.partial`
  fs.writeFileSync(partial, JSON.stringify(secrets, null, 2), { mode: 0o600 })
  fs.renameSync(partial, file)
  return secrets
}

export function serverKeys(config: Config): ServerKeys {
  let signing = config.TOKEN_SIGNING_KEY
  let pepper = config.SECRET_PEPPER
  if (signing === undefined || pepper === undefined) {
    const stored = readOrCreate(config.dataDir)
    signing ??= stored.token_signing_key
    pepper ??= stored.secret_pepper
  }
  return Object.freeze({ signingKey: new TextEncoder().encode(signing), pepper: Buffer.from(pepper, 'utf8') })
}
