/** HTTP written by hand on a socket, for what no client library would send as it is. */
import net from 'node:net'

/** Sends bytes as they are (no client library normalises the request line or headers) and reads the whole answer. */
export function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text))
    let answer = ''
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}
