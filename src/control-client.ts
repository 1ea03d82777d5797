/**
 * The command's side of the embedded server's control socket (control.ts is the server's): what may be
 * asked, where the socket is, and the asking. Apart from the server's side so that a command the server
 * answers loads only this, not the services that answer it.
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { OperatorError } from './core/operator-error.ts'

export type ControlRequest =
  | { op: 'audit'; since?: string; domain?: string }
  | { op: 'outbox'; all: boolean }
  | { op: 'clients create'; email: string; description: string; domain?: string }
  | { op: 'users reset-password'; domain: string; email: string }

export const controlPath = (dir: string): string => path.join(dir, 'control.sock')

/**
 * Asks the server holding DATA_DIR. Undefined when none answers (no socket, or one left by a dead process):
 * the command then opens the database itself. A refusal by the server throws with its message.
 */
export async function askServer(dir: string, request: ControlRequest): Promise<unknown> {
  const file = controlPath(dir)
  if (!fs.existsSync(file)) return undefined
  const reply = await new Promise<string | undefined>((resolve) => {
    const socket = net.connect(file)
    let text = ''
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`))
    socket.on('data', (chunk) => (text += chunk.toString('utf8')))
    socket.on('error', () => resolve(undefined))
    socket.on('close', () => resolve(text === '' ? undefined : text))
  })
  if (reply === undefined) return undefined
  const parsed = JSON.parse(reply) as { ok: boolean; result?: unknown; error?: string }
  if (!parsed.ok) throw new ControlError(parsed.error ?? 'the server refused the request')
  return parsed.result
}

/** The running server refused a request: its message, for one line on stderr. */
export class ControlError extends OperatorError {
  override name = 'ControlError'
}
