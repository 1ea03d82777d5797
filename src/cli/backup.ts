/**
 * `procurement backup <file>` and `procurement restore <file>`: the embedded database and its key file in
 * one file (mode 0600). The file is one JSON header line — format, service version, time, the key file's
 * contents, the dump's length and SHA-256 — followed by PGlite's dump of the data directory (a gzipped
 * tarball, taken from the open database, so it is consistent). Restore checks length and digest before it
 * writes anything, builds the database beside its place (pgdata.partial) and moves it in whole.
 * With PostgreSQL the path is pg_dump/pg_restore (docs/operations.md).
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Config } from '../config.ts'
import { OperatorError } from '../core/operator-error.ts'
import { serviceVersion } from '../core/version.ts'
import { openDatabase, openPglite } from '../db/database.ts'
import { lockDataDir, pgdataPaths } from '../db/data-dir.ts'
import { securePermissions } from '../db/integrity.ts'
import { keepPrivate } from '../db/private-files.ts'
import { readStored, writeStored, type StoredSecrets } from '../keys.ts'
import { UsageError } from './usage.ts'

const FORMAT = 'procurement-backup'

interface Header {
  format: typeof FORMAT
  version: 1
  service_version: string
  created_at: string
  keys: StoredSecrets | null
  pgdata_bytes: number
  pgdata_sha256: string
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

function embeddedOnly(config: Readonly<Config>, command: string): void {
  if (config.DATABASE_URL !== undefined)
    throw new OperatorError(
      `procurement ${command} is for the embedded database; with DATABASE_URL use pg_dump and pg_restore (docs/operations.md).`,
    )
}

export async function backup(config: Readonly<Config>, file: string | undefined): Promise<void> {
  if (file === undefined) throw new UsageError('backup needs <file>')
  embeddedOnly(config, 'backup')
  if (!fs.existsSync(pgdataPaths(config.dataDir).ready))
    throw new OperatorError(`There is no embedded database in ${config.dataDir} to back up.`)
  const keys = readStored(config.dataDir) ?? null
  const database = await openDatabase(config, { command: 'backup', prepare: async () => {} })
  let data: Buffer
  try {
    data = Buffer.from(await (await database.dump!()).arrayBuffer())
  } finally {
    await database.close()
  }
  const header: Header = {
    format: FORMAT,
    version: 1,
    service_version: serviceVersion(),
    created_at: new Date().toISOString(),
    keys,
    pgdata_bytes: data.length,
    pgdata_sha256: sha256(data),
  }
  const partial = `${file}.${process.pid}.partial`
  fs.writeFileSync(partial, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]), { mode: 0o600 })
  fs.renameSync(partial, file)
  const note = keys === null ? ' (no key file: the keys come from the environment; keep them too)' : ' and its keys'
  console.log(`Backed up the embedded database in ${config.dataDir}${note} to ${file} (${data.length} bytes).`)
}

function readBackup(file: string): { header: Header; data: Buffer } {
  let bytes: Buffer
  try {
    bytes = fs.readFileSync(file)
  } catch (error) {
    throw new OperatorError(`Cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`)
  }
  const end = bytes.indexOf(0x0a)
  let header: Partial<Header> | undefined
  try {
    header = end > 0 ? (JSON.parse(bytes.subarray(0, end).toString('utf8')) as Partial<Header>) : undefined
  } catch {
    header = undefined
  }
  if (header?.format !== FORMAT || header.version !== 1)
    throw new OperatorError(`${file} is not a backup made by procurement backup.`)
  const data = bytes.subarray(end + 1)
  if (data.length !== header.pgdata_bytes || sha256(data) !== header.pgdata_sha256)
    throw new OperatorError(`${file} is damaged or incomplete (its length or SHA-256 does not match its header).`)
  return { header: header as Header, data }
}

export async function restore(config: Readonly<Config>, file: string | undefined, force: boolean): Promise<void> {
  if (file === undefined) throw new UsageError('restore needs <file>')
  embeddedOnly(config, 'restore')
  const { header, data } = readBackup(file)
  const dir = config.dataDir
  const present = fs.existsSync(dir) ? fs.readdirSync(dir) : []
  if (present.length > 0 && !force)
    throw new OperatorError(
      `${dir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): restore into a missing or empty DATA_DIR, or add --force to replace what is there.`,
    )
  const lock = await lockDataDir(dir, 'restore')
  try {
    const { ready, partial } = pgdataPaths(dir)
    fs.rmSync(partial, { recursive: true, force: true })
    keepPrivate(dir)
    const restored = await openPglite({ dataDir: partial, loadDataDir: new Blob([data]) })
    await restored.close()
    // Only now is anything that was there replaced: first the old database, then the keys, then the new one.
    for (const name of present) fs.rmSync(path.join(dir, name), { recursive: true, force: true })
    if (header.keys !== null) writeStored(dir, header.keys)
    fs.renameSync(partial, ready)
    securePermissions(dir)
  } finally {
    await lock.release()
  }
  const keys =
    header.keys === null ? ' The backup holds no keys: set TOKEN_SIGNING_KEY and SECRET_PEPPER as before.' : ''
  console.log(
    `Restored ${file} (made ${header.created_at} by version ${header.service_version}) into ${dir}.${keys} Run procurement check, then start the service.`,
  )
}
