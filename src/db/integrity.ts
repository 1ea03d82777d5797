/**
 * The embedded database's files, checked before PGlite opens them, and kept private.
 *
 * PGlite (PostgreSQL in WebAssembly) meets a damaged data directory with a WebAssembly abort and a stack
 * trace, and meets one without PG_VERSION by running initdb over whatever is there. So before it opens
 * an existing `pgdata`, the files PostgreSQL cannot start without are looked at: PG_VERSION, the control
 * file (always 8 KiB) and the write-ahead log (segments all of one size). Any failure to open that gets
 * past these checks is turned into the same kind of one-line message by the caller.
 *
 * PGlite writes most files with mode 0666 whatever the umask; `securePermissions` makes the folder 0700 and
 * every file in it 0600 on each start.
 */
import fs from 'node:fs'
import path from 'node:path'
import { OperatorError, RESTORE_REMEDY } from '../core/operator-error.ts'

const PG_CONTROL_SIZE = 8192
const WAL_SEGMENT = /^[0-9A-F]{24}$/

const damaged = (dir: string, what: string) =>
  new OperatorError(`The embedded database in ${dir} is damaged (${what}): ${RESTORE_REMEDY}.`)

function sizeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).size
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** Throws OperatorError naming the first thing wrong with an existing PGlite data directory. */
export function checkPgdataFiles(dir: string): void {
  const version = path.join(dir, 'PG_VERSION')
  if (sizeOf(version) === undefined) throw damaged(dir, `${version} is missing`)
  if (!/^\d+\n?$/.test(fs.readFileSync(version, 'utf8'))) throw damaged(dir, `${version} is not a version number`)
  const control = path.join(dir, 'global', 'pg_control')
  const controlSize = sizeOf(control)
  if (controlSize === undefined) throw damaged(dir, `${control} is missing`)
  if (controlSize !== PG_CONTROL_SIZE) throw damaged(dir, `${control} is ${controlSize} bytes, not ${PG_CONTROL_SIZE}`)
  const wal = path.join(dir, 'pg_wal')
  const segments = fs.existsSync(wal) ? fs.readdirSync(wal).filter((name) => WAL_SEGMENT.test(name)) : []
  if (segments.length === 0) throw damaged(dir, `${wal} holds no write-ahead log`)
  const sizes = segments.map((name) => [name, sizeOf(path.join(wal, name)) ?? 0] as const)
  const largest = Math.max(...sizes.map(([, size]) => size))
  for (const [name, size] of sizes) {
    if (size !== largest || size < 1 << 20)
      throw damaged(dir, `the write-ahead log segment ${path.join(wal, name)} is truncated (${size} bytes)`)
  }
}

/** DATA_DIR 0700, every folder in it 0700 and every file 0600 (symbolic links are left alone). */
export function securePermissions(dir: string): void {
  fs.chmodSync(dir, 0o700)
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) {
        fs.chmodSync(full, 0o700)
        walk(full)
      } else if (entry.isFile()) {
        fs.chmodSync(full, 0o600)
      }
    }
  }
  walk(dir)
}
