/**
 * The embedded database's folder: one process at a time, and never left half-made.
 *
 * Exclusive use: the holder binds a Unix socket in Linux's abstract namespace, named after the folder's real
 * path. The kernel lets only one process bind a name and frees it the moment that process dies (even by
 * `kill -9`), so there is no stale lock to clean up. A second process fails to bind, connects instead and
 * reads who holds the folder. (Other systems: a socket file in the folder does the same job, less strictly.)
 *
 * Never half-made: a new database is created in `<DATA_DIR>/pgdata.partial`, migrated and seeded there, and
 * only then renamed to `pgdata`. A start that is killed half-way leaves only the `.partial` folder, which
 * the next start deletes and makes again.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError'
}

export interface DataDirLock {
  release(): Promise<void>
}

interface Holder {
  pid: number
  command: string
  since: string
}

function socketAddress(dir: string): string {
  const real = fs.realpathSync(dir)
  if (process.platform === 'linux') {
    return `\0procurement-datadir-${createHash('sha256').update(real).digest('hex').slice(0, 32)}`
  }
  return path.join(real, '.lock.sock')
}

async function whoHolds(address: string): Promise<Holder | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(address)
    let text = ''
    socket.setTimeout(1000, () => socket.destroy())
    socket.on('data', (chunk) => (text += chunk.toString()))
    socket.on('error', () => resolve(undefined))
    socket.on('close', () => {
      try {
        resolve(JSON.parse(text) as Holder)
      } catch {
        resolve(undefined)
      }
    })
  })
}

/** Takes the folder for this process, or throws DataDirLockedError naming the process that has it. */
export async function lockDataDir(dir: string, command: string): Promise<DataDirLock> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const address = socketAddress(dir)
  const me: Holder = { pid: process.pid, command, since: new Date().toISOString() }
  const server = net.createServer((socket) => socket.end(JSON.stringify(me)))
  server.unref()
  const bind = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(address, () => {
        server.off('error', reject)
        resolve()
      })
    })
  try {
    await bind()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    const holder = await whoHolds(address)
    if (holder === undefined && !address.startsWith('\0')) {
      // A socket file left by a dead process (non-Linux only): nobody answers, so take it over.
      fs.rmSync(address, { force: true })
      await bind()
    } else {
      const who = holder ? `process ${holder.pid} (${holder.command}, since ${holder.since})` : 'another process'
      throw new DataDirLockedError(
        `The data directory ${dir} is in use by ${who}. The embedded database serves one process at a time: ` +
          `stop that process first, or point DATA_DIR elsewhere.`,
      )
    }
  }
  return {
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Where PGlite keeps its files inside DATA_DIR, and where a new database is built before it is complete. */
export function pgdataPaths(dir: string): { ready: string; partial: string } {
  return { ready: path.join(dir, 'pgdata'), partial: path.join(dir, 'pgdata.partial') }
}
