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
  sendMail(message: {
    from: string
    to: string
    subject: string
    text: string
    attachments?: { filename: string; contentType: string; content: Buffer }[]
  }): Promise<unknown>
}

/** SMTP with timeouts well inside the lease, so a hung server cannot outlast it and get a message sent twice. */
export function smtpTransport(url: string): Transport {
  const timeouts = new URLSearchParams({ connectionTimeout: '30000', greetingTimeout: '30000', socketTimeout: '60000' })
  const withTimeouts = new URL(url)
  for (const [name, value] of timeouts)
    if (!withTimeouts.searchParams.has(name)) withTimeouts.searchParams.set(name, value)
  return nodemailer.createTransport(withTimeouts.toString())
}

/** Sends what is due; returns how many were sent and how many failed this round. */
export async function deliverDue(
  db: Kysely<DB>,
  transport: Transport,
  from: string,
): Promise<{ sent: number; failed: number }> {
  let sent = 0
  let failed = 0
  for (const message of await outbox.leaseDue(db, BATCH, LEASE_SECONDS)) {
    try {
      const attachments = (message.attachments ?? []).map((a) => ({
        filename: a.filename,
        contentType: a.content_type,
        content: Buffer.from(a.content, 'base64'),
      }))
      await transport.sendMail({
        from,
        to: message.to_address,
        subject: message.subject,
        text: message.body_text,
        ...(attachments.length > 0 ? { attachments } : {}),
      })
      await outbox.markSent(db, message.id)
      sent++
    } catch (error) {
      const attempts = message.attempts + 1
      const delay = Math.min(3600_000, 10_000 * 2 ** (attempts - 1))
      await outbox.markFailed(
        db,
        message.id,
        (error as Error).message,
        attempts >= MAX_ATTEMPTS ? null : new Date(Date.now() + delay),
      )
      failed++
    }
  }
  return { sent, failed }
}

/** Runs `deliverDue` every `intervalMs`, one round at a time, until stopped; errors are logged, never thrown. */
export function startMailer(
  db: Kysely<DB>,
  transport: Transport,
  from: string,
  log: { error(obj: object, msg: string): void },
  intervalMs = 2000,
): () => Promise<void> {
  let busy = false
  const timer = setInterval(() => {
    if (busy) return // a slow round is still sending: skip this tick rather than queue rounds up
    busy = true
    deliverDue(db, transport, from)
      .catch((error: unknown) => log.error({ err: error }, 'mail delivery failed'))
      .finally(() => (busy = false))
  }, intervalMs)
  timer.unref()
  // Stopping does not wait for a round in flight: what it leased is retried when the lease runs out.
  return () => {
    clearInterval(timer)
    return Promise.resolve()
  }
}
