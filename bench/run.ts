/** `npm run bench -- <name>`: runs bench/<name>.ts (default: every benchmark in turn); see docs/benchmarks.md. */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const dir = import.meta.dirname
const names = process.argv.slice(2)
const all = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && f !== 'lib.ts')
  .map((f) => f.slice(0, -3))
let failed = false
for (const name of names.length > 0 ? names : all) {
  if (!all.includes(name)) throw new Error(`no benchmark ${name}; have ${all.join(', ')}`)
  console.log(`\n## ${name}`)
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, `${name}.ts`)], { stdio: 'inherit' })
  failed ||= run.status !== 0
}
process.exitCode = failed ? 1 : 0
