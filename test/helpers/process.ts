/** Runs the real `procurement` command in a child process and watches what it prints. */
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

const bin = path.resolve(import.meta.dirname, '../../bin/procurement.cjs')

export interface Running {
  child: ChildProcess
  output: () => string
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  exited: Promise<number | null>
}

export function run(args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let text = ''
  const listeners = new Set<() => void>()
  const onData = (chunk: Buffer) => {
    text += chunk.toString()
    for (const l of listeners) l()
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  // Once the process has exited and its output is all read, nothing more can match: a waiter says so at once
  // rather than when its timer runs out (a pending timer also kept the test file's process alive that long).
  let closed = false
  const onClose = new Set<() => void>()
  child.on('close', () => {
    closed = true
    for (const f of onClose) f()
  })
  const waitFor = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        listeners.delete(check)
        onClose.delete(gone)
        clearTimeout(timer)
        outcome()
      }
      const check = () => {
        const match = text.match(pattern)
        if (match) settle(() => resolve(match))
      }
      const gone = () => {
        check()
        settle(() => reject(new Error(`the process exited before printing ${pattern}; its output:\n${text}`)))
      }
      const timer = setTimeout(
        () => settle(() => reject(new Error(`timed out waiting for ${pattern}; output so far:\n${text}`))),
        timeoutMs,
      )
      listeners.add(check)
      onClose.add(gone)
      check()
      if (closed) gone()
    })
  return { child, output: () => text, waitFor, exited }
}

/** Runs a command to completion. */
export async function runToEnd(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const r = run(args, env)
  const code = await r.exited
  return { code, output: r.output() }
}
