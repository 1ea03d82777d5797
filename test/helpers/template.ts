/**
 * Migrated template databases, made once per run (test/global-setup.ts) and copied per test file:
 * PGlite loads a dump of a migrated data directory; PostgreSQL uses CREATE DATABASE … TEMPLATE.
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

export const pgliteDumpPath = () => path.join(root, '.cache', `pglite-template-${migrationsHash()}.tar.gz`)
export const PG_TEMPLATE = 'procurement_test_template'
export const PG_PREFIX = 'procurement_test_'

export function adminUrl(url: string, database = 'postgres'): string {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}
