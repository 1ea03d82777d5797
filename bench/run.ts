/** `npm run bench -- <name>`: runs bench/<name>.ts (default: every benchmark in turn); see docs/benchmarks.md. */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const dir = import.meta.dirname
const names = process.argv.slice(2)
const all = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3))
for (const name of names) if (!all.includes(name)) throw new Error(`no benchmark ${name}; have ${all.join(', ')}`)
let failed = false
for (const name of names.length > 0 ? names : all) {
  console.log(`\n## ${name}`)
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(dir, `${name}.ts`)], { stdio: 'inherit' })
  // A stop sent to this process (e.g. by `timeout`) reaches the benchmark, which then cleans up after itself.
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  process.on('SIGTERM', forward).on('SIGINT', forward)
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
  process.off('SIGTERM', forward).off('SIGINT', forward)
  if (code === 130) process.exit(130)
  failed ||= code !== 0
}
process.exitCode = failed ? 1 : 0
