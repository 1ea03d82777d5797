/**
 * Delivers queued e-mail over SMTP (SMTP_URL). A failed delivery is retried with growing delays (10 s, 20 s,
 * 40 s … up to an hour) and given up after MAX_ATTEMPTS, marked `failed` with its last error; the user it
 * concerns is never touched. Without SMTP_URL nothing is sent and mail stays in the outbox
 * (`npx procurement outbox` shows it).
 */
import type { Kysely } from 'kysely'
import nodemailer from 'nodemailer'
import type { DB } from '../db/schema.ts'
import * as outbox from './outbox.repository.ts'

export const MAX_ATTEMPTS = 20
const BATCH = 20
const LEASE_SECONDS = 300

export interface Transport {
  sendMail(message: { from: string; to: string; subject: string; text: string }): Promise<unknown>
}

export const smtpTransport = (url: string): Transport => nodemailer.createTransport(url)

/** Sends what is due; returns how many were sent and how many failed this round. */
export async function deliverDue(db: Kysely<DB>, transport: Transport, from: string): Promise<{ sent: number; failed: number }> {
  let sent = 0
  let failed = 0
  for (const message of await outbox.leaseDue(db, BATCH, LEASE_SECONDS)) {
    try {
      await transport.sendMail({ from, to: message.to_address, subject: message.subject, text: message.body_text })
      await outbox.markSent(db, message.id)
      sent++
    } catch (error) {
      const attempts = message.attempts + 1
      const delay = Math.min(3600_000, 10_000 * 2 ** (attempts - 1))
      await outbox.markFailed(db, message.id, (error as Error).message, attempts >= MAX_ATTEMPTS ? null : new Date(Date.now() + delay))
      failed++
    }
  }
  return { sent, failed }
}

/** Runs `deliverDue` every `intervalMs` until stopped; errors are logged, never thrown. */
export function startMailer(
  db: Kysely<DB>,
  transport: Transport,
  from: string,
  log: { error(obj: object, msg: string): void },
  intervalMs = 2000,
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve()
  const timer = setInterval(() => {
    running = running.then(() => deliverDue(db, transport, from)).catch((error: unknown) => log.error({ err: error }, 'mail delivery failed'))
  }, intervalMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
