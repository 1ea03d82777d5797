/** Multipart bodies for the attachment tests, built by hand (the bytes the server must parse). */
import { randomBytes } from 'node:crypto'

export interface Part {
  name: string
  value: string | Buffer
  filename?: string
  type?: string
}

export function multipart(parts: Part[]) {
  const boundary = `----test${randomBytes(8).toString('hex')}`
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition =
      p.filename === undefined ? `form-data; name="${p.name}"` : `form-data; name="${p.name}"; filename="${p.filename}"`
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.filename === undefined ? '' : `Content-Type: ${p.type ?? 'application/octet-stream'}\r\n`}\r\n`
    chunks.push(
      Buffer.from(head, 'utf8'),
      Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value, 'utf8'),
      Buffer.from('\r\n'),
    )
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

/** A valid 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
)

/** A small PDF (enough for the signature). */
export const pdf = (text = 'hello') => Buffer.from(`%PDF-1.4\n1 0 obj<<>>endobj\n% ${text}\ntrailer<<>>\n%%EOF\n`)
