// The floor of an embedded start (bench/startup.ts): node, PGlite opening an existing data directory (DATA_DIR,
// with the server's start parameters) and answering `select 1`, and a bare node:http server whose /readyz asks
// it again — what any embedded start must do, and nothing else. Plain JavaScript, run by plain node.
import console from 'node:console'
import http from 'node:http'
import process from 'node:process'
import { PGlite } from '@electric-sql/pglite'

const db = await PGlite.create({
  dataDir: process.env.DATA_DIR,
  startParams: [
    ...PGlite.defaultStartParams,
    ...['-c', 'shared_buffers=8MB', '-c', 'max_connections=3', '-c', 'wal_buffers=512kB'],
  ],
})
await db.query('select 1')
const server = http.createServer((request, response) => {
  db.query('select 1').then(
    () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}'),
    () => response.writeHead(503).end(),
  )
})
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
process.on('SIGTERM', () => server.close(() => db.close().then(() => process.exit(0))))
