/**
 * The embedded server's control socket, DATA_DIR/control.sock (mode 0600, in a 0700 folder): while `serve`
 * holds the embedded database, the `procurement` command asks it instead of opening the database itself —
 * `audit`, `outbox`, `clients create` and `users reset-password`, so an administrator without SMTP can read
 * invitation and set-password links without stopping the service. One JSON line asks, one JSON line answers ({ok, result} or {ok: false, error}).
 * The server runs exactly what the command would (the same repository reads, the same audited service call).
 */
import fs from 'node:fs'
import net from 'node:net'
import type { Kysely } from 'kysely'
import { operatorActor } from './access/actor.ts'
import { createApplication, findOwner } from './applications/service.ts'
import { auditEntries as readAudit } from './audit/service.ts'
import type { DB } from './db/schema.ts'
import type { ServerKeys } from './keys.ts'
import { controlPath, type ControlRequest } from './control-client.ts'
import { listOutbox } from './mail/service.ts'
import { resetPasswordLink } from './tenants/service.ts'

const MAX_REQUEST = 64 * 1024

function answer(db: Kysely<DB>, keys: ServerKeys, request: ControlRequest): Promise<unknown> {
  switch (request.op) {
    case 'audit':
      return readAudit(db, {
        since: request.since === undefined ? undefined : new Date(request.since),
        domain: request.domain,
      })
    case 'outbox':
      return listOutbox(db, request.all === true)
    case 'clients create':
      return findOwner(db, String(request.email), request.domain).then((owner) =>
        createApplication(db, keys.pepper, operatorActor({ id: owner.tenantId, domain: owner.domain }), {
          ownerUserId: owner.userId,
          description: String(request.description),
        }),
      )
    case 'users reset-password':
      return resetPasswordLink(db, String(request.domain), String(request.email))
    default:
      return Promise.reject(new Error('unknown request'))
  }
}

/** Listens on DATA_DIR/control.sock; returns the function that stops listening and removes the socket. */
export async function serveControl(dir: string, db: Kysely<DB>, keys: ServerKeys): Promise<() => void> {
  const file = controlPath(dir)
  fs.rmSync(file, { force: true }) // left by a server that was killed; this process holds DATA_DIR now
  const server = net.createServer((socket) => {
    let text = ''
    socket.on('error', () => socket.destroy())
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8')
      if (text.length > MAX_REQUEST) return socket.destroy()
      const end = text.indexOf('\n')
      if (end < 0) return
      socket.pause()
      let request: ControlRequest
      try {
        request = JSON.parse(text.slice(0, end)) as ControlRequest
      } catch {
        return socket.end(`${JSON.stringify({ ok: false, error: 'not a JSON request' })}\n`)
      }
      answer(db, keys, request).then(
        (result) => socket.end(`${JSON.stringify({ ok: true, result })}\n`),
        (error: unknown) =>
          socket.end(
            `${JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) })}\n`,
          ),
      )
    })
  })
  server.unref()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(file, () => resolve())
  })
  fs.chmodSync(file, 0o600)
  const stop = () => {
    server.close()
    fs.rmSync(file, { force: true })
  }
  process.once('exit', () => fs.rmSync(file, { force: true }))
  return stop
}
