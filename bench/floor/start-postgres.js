// The floor of a start on PostgreSQL (bench/startup.ts): node, one pg connection to DATABASE_URL answering
// `select 1`, and a bare node:http server whose /readyz asks it again — what any start on PostgreSQL must do,
// and nothing else. Plain JavaScript, run by plain node.
import console from 'node:console'
import http from 'node:http'
import process from 'node:process'
import pg from 'pg'

const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
await client.connect()
await client.query('select 1')
const server = http.createServer((request, response) => {
  client.query('select 1').then(
    () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}'),
    () => response.writeHead(503).end(),
  )
})
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
process.on('SIGTERM', () => server.close(() => client.end().then(() => process.exit(0))))
