/**
 * The raw floor of bench/attachments.ts: plain node:http and pg, no framework, no multipart parsing, no type
 * detection, no spooling to disk. `POST /blobs/<id>` streams the request's bytes into PostgreSQL in 1 MiB parts
 * in the service's own chunk table (attachment_blob_parts: tenant_id, blob_id, id, data), hashing them on the
 * way, in one transaction; `GET /blobs/<id>` streams the parts out 48 KiB at a time, as the
 * service does. The blob rows it writes under
 * are made by the benchmark. Environment: DATABASE_URL, FLOOR_TENANT.
 */
import { Buffer } from 'node:buffer'
import console from 'node:console'
import { createHash } from 'node:crypto'
import http from 'node:http'
import process from 'node:process'
import pg from 'pg'

const PART = 1024 * 1024
/** The server reads a part 48 KiB at a time (src/attachments/store.ts), and so does the floor. */
const SLICE = 48 * 1024
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 })
const tenant = Number(process.env.FLOOR_TENANT)

async function receive(request, blobId) {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    await client.query('DELETE FROM attachment_blob_parts WHERE tenant_id = $1 AND blob_id = $2', [tenant, blobId])
    const hash = createHash('sha256')
    let pending = []
    let pendingSize = 0
    let n = 0
    let size = 0
    const flush = async (all) => {
      while (pendingSize >= PART || (all && pendingSize > 0)) {
        const joined = Buffer.concat(pending)
        const part = joined.subarray(0, Math.min(PART, joined.length))
        const rest = joined.subarray(part.length)
        pending = rest.length > 0 ? [rest] : []
        pendingSize = rest.length
        await client.query('INSERT INTO attachment_blob_parts (tenant_id, blob_id, id, data) VALUES ($1, $2, $3, $4)', [
          tenant,
          blobId,
          n++,
          part,
        ])
      }
    }
    for await (const chunk of request) {
      hash.update(chunk)
      size += chunk.length
      pending.push(chunk)
      pendingSize += chunk.length
      if (pendingSize >= PART) await flush(false)
    }
    await flush(true)
    await client.query('COMMIT')
    return { size, sha256: hash.digest('hex') }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

async function send(response, blobId) {
  response.writeHead(200, { 'content-type': 'application/octet-stream' })
  for (let n = 0; ; n++) {
    for (let from = 1; ; from += SLICE) {
      const { rows } = await pool.query(
        'SELECT substring(data from $4 for $5) AS data FROM attachment_blob_parts WHERE tenant_id = $1 AND blob_id = $2 AND id = $3',
        [tenant, blobId, n, from, SLICE],
      )
      if (rows.length === 0) return void response.end()
      const data = rows[0].data
      if (data.length > 0 && !response.write(data)) await new Promise((resolve) => response.once('drain', resolve))
      if (data.length < SLICE) break
    }
  }
}

const server = http.createServer((request, response) => {
  if (request.url === '/readyz') return void response.end('ok')
  const match = /^\/blobs\/(\d+)$/.exec(request.url ?? '')
  if (match === null) {
    response.statusCode = 404
    return void response.end()
  }
  const blobId = Number(match[1])
  const work =
    request.method === 'POST'
      ? receive(request, blobId).then((body) => {
          response.writeHead(201, { 'content-type': 'application/json' })
          response.end(JSON.stringify(body))
        })
      : send(response, blobId)
  work.catch((error) => {
    console.error(error)
    response.destroy()
  })
})
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))))
