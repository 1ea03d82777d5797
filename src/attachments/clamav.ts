/**
 * Scanning with ClamAV's clamd (DECISIONS: with CLAMAV_HOST/CLAMAV_PORT or CLAMAV_SOCKET every upload is
 * scanned before it is stored). The spooled file is streamed with `zINSTREAM`: chunks each prefixed with
 * their length (4 bytes, network order), a zero length to end, then one reply — `stream: OK`,
 * `stream: <signature> FOUND`, or an error. Anything but OK or FOUND, or no daemon, fails closed (503).
 */
import { createReadStream } from 'node:fs'
import net from 'node:net'
import { Problem } from '../core/problem.ts'

export type ClamdAddress = { socket: string } | { host: string; port: number }

export type ScanResult = { clean: true } | { clean: false; signature: string }

const CHUNK = 64 * 1024
const TIMEOUT_MS = 120_000

export const scannerDown = (why: string) =>
  new Problem(
    503,
    'Service Unavailable',
    `The virus scanner is not available (${why}), so nothing was stored; try again in a minute.`,
    { kind: 'unavailable', headers: { 'retry-after': '30' } },
  )

/** Scans the file at `file` with clamd at `address`. */
export async function scanFile(address: ClamdAddress, file: string): Promise<ScanResult> {
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = 'socket' in address ? net.connect(address.socket) : net.connect(address.port, address.host)
    const answer: Buffer[] = []
    let settled = false
    const fail = (why: string) => {
      if (settled) return
      settled = true
      socket.destroy()
      reject(scannerDown(why))
    }
    socket.setTimeout(TIMEOUT_MS, () => fail('it did not answer in time'))
    socket.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'connection failed'))
    const done = () => {
      if (settled) return
      settled = true
      socket.destroy()
      resolve(
        Buffer.concat(answer)
          .toString('utf8')
          .replace(/\0[^]*$/, '')
          .trim(),
      )
    }
    socket.on('data', (data: Buffer) => {
      answer.push(data)
      if (data.includes(0)) done()
    })
    socket.on('end', done)
    socket.on('connect', () => {
      void (async () => {
        socket.write('zINSTREAM\0')
        for await (const chunk of createReadStream(file, { highWaterMark: CHUNK })) {
          const data = chunk as Buffer
          const length = Buffer.alloc(4)
          length.writeUInt32BE(data.length)
          if (!socket.write(Buffer.concat([length, data]))) await new Promise((r) => socket.once('drain', r))
          if (settled) return
        }
        socket.write(Buffer.alloc(4))
      })().catch(() => fail('the file could not be sent to it'))
    })
  })
  const found = /^stream: (.+) FOUND$/.exec(reply)
  if (found !== null) return { clean: false, signature: found[1]! }
  if (reply === 'stream: OK') return { clean: true }
  throw scannerDown(`it answered ${JSON.stringify(reply.slice(0, 200))}`)
}
