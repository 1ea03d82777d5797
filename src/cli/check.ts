/** `procurement check`: is the database whole? Exit 0 when every table reads and the counts agree, else 1. */
import fs from 'node:fs'
import type { Config } from '../config.ts'
import { OperatorError } from '../core/operator-error.ts'
import { checkDatabase } from '../db/check.ts'
import { pgdataPaths } from '../db/data-dir.ts'
import { withDatabase } from './shared.ts'

export async function check(config: Readonly<Config>, json: boolean): Promise<void> {
  if (config.DATABASE_URL === undefined && !fs.existsSync(pgdataPaths(config.dataDir).ready)) {
    throw new OperatorError(`There is no embedded database in ${config.dataDir} to check.`)
  }
  // Nothing is migrated or seeded: the check reads what is there.
  const report = await withDatabase(config, 'check', checkDatabase, async () => {})
  if (json) console.log(JSON.stringify({ ok: report.problems.length === 0, ...report }))
  else if (report.problems.length === 0)
    console.log(`The database is whole: ${report.tables} tables, ${report.rows} rows read; every count agrees.`)
  else for (const problem of report.problems) console.error(`procurement check: ${problem}`)
  if (report.problems.length > 0) process.exitCode = 1
}
