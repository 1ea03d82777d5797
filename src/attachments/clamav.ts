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
/** How long connecting may take, and how long clamd may stay silent once connected (a large file's scan). */
const CONNECT_TIMEOUT_MS = 10_000
const TIMEOUT_MS = 120_000

export const scannerDown = (why: string) =>
  new Problem(
    503,
    'Service Unavailable',
    `The virus scanner is not available (${why}), so nothing was stored; try again in a minute.`,
    { kind: 'unavailable', headers: { 'retry-after': '30' } },
  )

/** Resolves once `socket` takes more data, or once it is closed (clamd answered early, or went away). */
const writable = (socket: net.Socket) =>
  new Promise<void>((resolve) => {
    const go = () => {
      socket.off('drain', go)
      socket.off('close', go)
      resolve()
    }
    socket.on('drain', go)
    socket.on('close', go)
  })

/**
 * Streams the file as `zINSTREAM` chunks, then the zero length that ends it. Stops (and closes the file) as
 * soon as the scan is settled: clamd may answer before the end, e.g. past its StreamMaxLength.
 */
async function send(socket: net.Socket, file: string, settled: () => boolean) {
  socket.write('zINSTREAM\0')
  for await (const chunk of createReadStream(file, { highWaterMark: CHUNK })) {
    if (settled() || socket.destroyed) return
    const data = chunk as Buffer
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    socket.write(length)
    if (!socket.write(data)) await writable(socket)
  }
  if (!settled() && !socket.destroyed) socket.write(Buffer.alloc(4))
}

/** Scans the file at `file` with clamd at `address`. */
export async function scanFile(address: ClamdAddress, file: string): Promise<ScanResult> {
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = 'socket' in address ? net.connect(address.socket) : net.connect(address.port, address.host)
    const answer: Buffer[] = []
    let settled = false
    let connected = false
    const fail = (why: string) => {
      if (settled) return
      settled = true
      socket.destroy()
      reject(scannerDown(why))
    }
    socket.setTimeout(CONNECT_TIMEOUT_MS)
    socket.on('timeout', () =>
      fail(connected ? 'it did not answer in time' : 'it did not accept the connection in time'),
    )
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'connection failed'
      // clamd closes the connection when it refuses a stream (past its StreamMaxLength, say); when that
      // refusal reaches the socket after the failed write, the refusal itself is lost.
      fail(
        connected && (code === 'EPIPE' || code === 'ECONNRESET')
          ? `it closed the connection before the whole file was sent, ${code}`
          : code,
      )
    })
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
    socket.on('end', () => {
      if (answer.length > 0) done()
      else fail('it closed the connection without an answer')
    })
    socket.on('connect', () => {
      connected = true
      socket.setTimeout(TIMEOUT_MS)
      void send(socket, file, () => settled).catch(() => fail('the file could not be sent to it'))
    })
  })
  const found = /^stream: (.+) FOUND$/.exec(reply)
  if (found !== null) return { clean: false, signature: found[1]! }
  if (reply === 'stream: OK') return { clean: true }
  throw scannerDown(`it answered ${JSON.stringify(reply.slice(0, 200))}`)
}
