/**
 * Migrated template databases, made once per run (test/run.ts) and copied per test file: PGlite loads a
 * dump of a migrated data directory; PostgreSQL uses CREATE DATABASE … TEMPLATE. On PostgreSQL every name
 * derives from the database named in TEST_DATABASE_URL and the run's id, so runs sharing a server never touch
 * each other's databases.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../..')

/** Changes whenever a migration changes, so a stale template is never used. */
export function migrationsHash(): string {
  const dir = path.join(root, 'src/db/migrations')
  const hash = createHash('sha256')
  for (const file of fs.readdirSync(dir).sort()) hash.update(file).update(fs.readFileSync(path.join(dir, file)))
  return hash.digest('hex').slice(0, 16)
}

/** `-2`: the dump without template0 and template1 (test/run.ts). */
export const pgliteDumpPath = () => path.join(root, '.cache', `pglite-template-${migrationsHash()}-2.tar`)

/** The prefix of every database of this run: `<configured database>_<run id>_` (within PostgreSQL's 63 bytes). */
export function runPrefix(url: string, runId: string): string {
  const configured = decodeURIComponent(new URL(url).pathname.slice(1)) || 'test'
  return `${configured.slice(0, 30)}_${runId}_`.toLowerCase().replace(/[^a-z0-9_]/g, '_')
}

export const templateName = (url: string, runId: string) => `${runPrefix(url, runId)}template`

/** The same server and credentials, another database (default: the maintenance database `postgres`). */
export function adminUrl(url: string, database = 'postgres'): string {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}
