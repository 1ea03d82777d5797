/**
 * Start to /readyz and idle memory of the real `procurement serve` process: the embedded engine's first
 * start and restarts, and PostgreSQL (BENCH_DATABASE_URL, a scratch database made and dropped here).
 * Runs the command as `npm start` does (compiled when dist/ is current). Run: npm run bench -- startup
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'

const bin = path.resolve(import.meta.dirname, '../bin/procurement.js')
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

async function start(env: Record<string, string>): Promise<{ ms: number; rssMb: number }> {
  const begin = performance.now()
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
  let base: string | undefined
  while (base === undefined) {
    base = /listening on (http:\/\/\S+)/.exec(out)?.[1]
    if (child.exitCode !== null) throw new Error(`the server exited: ${out}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  for (;;) {
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    )
    if (ready) break
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  const ms = performance.now() - begin
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024
  child.kill('SIGTERM')
  await new Promise((resolve) => child.on('exit', resolve))
  return { ms, rssMb }
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const report = (name: string, runs: { ms: number; rssMb: number }[]) =>
  console.log(
    `${name}: start to /readyz ${median(runs.map((r) => r.ms)).toFixed(0)} ms (median of ${runs.length}), RSS ${median(runs.map((r) => r.rssMb)).toFixed(0)} MB`,
  )

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-startup-'))
report('embedded, first start', [await start({ DATA_DIR: dir })])
const restarts = []
for (let i = 0; i < rounds; i++) restarts.push(await start({ DATA_DIR: dir }))
report('embedded, restart', restarts)
fs.rmSync(dir, { recursive: true, force: true })

const url = process.env.BENCH_DATABASE_URL
if (url !== undefined) {
  const name = `startup_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`CREATE DATABASE "${name}"`)
  try {
    const target = new URL(url)
    target.pathname = `/${name}`
    const env = { DATABASE_URL: target.toString(), TOKEN_SIGNING_KEY: 'k'.repeat(40), SECRET_PEPPER: 'p'.repeat(40) }
    const runs = []
    for (let i = 0; i <= rounds; i++) runs.push(await start(env))
    report('PostgreSQL (after the first, migrating start)', runs.slice(1))
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await admin.end()
  }
}
