/**
 * Console sign-in timing side channel: alternating sign-ins with an unknown e-mail and with a known e-mail
 * and a wrong password, one at a time against a real listening server, and the median of the paired
 * differences (must stay under 1 ms). Run alone on a quiet machine: npm run bench -- sign-in
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openPglite } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { useLink } from '../src/invitations/service.ts'
import { hashPassword } from '../src/access/passwords.ts'
import { serverKeys } from '../src/keys.ts'
import { createTenant } from '../src/tenants/service.ts'

const pairs = Number(process.env.BENCH_PAIRS ?? 101)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-bench-'))
const config = loadConfig({
  DATA_DIR: dir,
  LOG_LEVEL: 'silent',
  TOKEN_FAILURES_PER_CLIENT: '1000000000',
  TOKEN_FAILURES_PER_ADDRESS: '1000000000',
})
const database = await openPglite()
await migrateToLatest(database.db)
const created = await createTenant(database.db, { domain: 'bench', name: 'Bench', adminEmail: 'admin@bench.test' })
await useLink(database.db, created.setupToken, await hashPassword('the right password'))
const app = await buildApp({ config, database, keys: serverKeys(config) })
const base = await app.listen({ port: 0, host: '127.0.0.1' })

async function time(email: string): Promise<number> {
  const start = process.hrtime.bigint()
  const response = await fetch(`${base}/console/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: 'a wrong password' }).toString(),
  })
  await response.text()
  if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`)
  return Number(process.hrtime.bigint() - start) / 1e6
}

await time('warm@bench.test')
const differences: number[] = []
for (let i = 0; i < pairs; i++) {
  // Alternating order, so whatever else the machine does weighs on both alike.
  if (i % 2 === 0) differences.push((await time('admin@bench.test')) - (await time(`ghost${i}@bench.test`)))
  else {
    const unknown = await time(`ghost${i}@bench.test`)
    differences.push((await time('admin@bench.test')) - unknown)
  }
}
differences.sort((a, b) => a - b)
const median = differences[Math.floor(differences.length / 2)]!
console.log(`sign-in: median of ${pairs} paired differences (wrong password − unknown e-mail) ${median.toFixed(3)} ms`)
console.log(Math.abs(median) < 1 ? 'timing: OK (difference under 1 ms)' : 'timing: FAIL (difference of 1 ms or more)')
await app.close()
await database.close()
fs.rmSync(dir, { recursive: true, force: true })
if (Math.abs(median) >= 1) process.exitCode = 1
