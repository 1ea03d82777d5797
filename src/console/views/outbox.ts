/** The outbox: the tenant's e-mail, newest first, with its links, for handing them over when no mail server is set. */
import type { Actor } from '../../access/actor.ts'
import { when } from './format.ts'
import { html } from './html.ts'
import { notice, page } from './layout.ts'
import { emptyState } from './lists.ts'

export interface OutboxMessage {
  id: number
  to_address: string
  subject: string
  body_text: string
  status: 'queued' | 'sent' | 'failed'
  created_at: Date | string
  /** What is attached (an order's PDF), without its bytes. */
  attachments?: readonly { filename: string; content_type: string; size: number }[]
}

/** "84 KB" for people, bytes under one kilobyte as bytes. */
const bytes = (n: number) =>
  n < 1024 ? `${n} bytes` : `${String(Math.round(n / 1024)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} KB`

const STATUS: Record<OutboxMessage['status'], string> = {
  queued: 'Not sent yet',
  sent: 'Sent',
  failed: 'Could not be sent',
}

export function outboxView(
  messages: readonly OutboxMessage[],
  smtp: boolean,
  all: boolean,
  frame: { actor: Actor; csrf: string },
): string {
  const body = html`${
      smtp
        ? notice('status', 'A mail server is configured: queued e-mail is being sent.')
        : notice(
            'alert',
            'No mail server is configured (SMTP_URL), so the service sends no e-mail. Copy each link below and give it to its person yourself; download an order’s PDF to forward it to its vendor.',
          )
    }
    <p class="actions">
      ${
        all
          ? html`<a href="/console/outbox">Show only e-mail not sent yet</a>`
          : html`<a href="/console/outbox?all=1">Show sent and failed e-mail too</a>`
      }
    </p>
    ${
      messages.length === 0
        ? emptyState(all ? 'No e-mail yet.' : 'Nothing is waiting: every e-mail has been sent.')
        : messages.map(
            (m) =>
              html`<article class="card message" aria-labelledby="message-${m.id}">
                <h2 id="message-${m.id}">${m.subject}</h2>
                <p class="muted">To ${m.to_address} · ${when(m.created_at)} · ${STATUS[m.status]}</p>
                <pre>${m.body_text}</pre>
                ${
                  (m.attachments ?? []).length === 0
                    ? ''
                    : html`<ul class="attachments">
                        ${(m.attachments ?? []).map(
                          (a, i) =>
                            html`<li>
                              <a href="/console/outbox/${m.id}/attachments/${i}" download="${a.filename}"
                                >Download ${a.filename}</a
                              >
                              <span class="muted"
                                >(${a.content_type === 'application/pdf' ? 'PDF' : a.content_type},
                                ${bytes(a.size)})</span
                              >
                            </li>`,
                        )}
                      </ul>`
                }
              </article>`,
          )
    }`
  return page({ title: 'Outbox', actor: frame.actor, csrf: frame.csrf, current: 'outbox' }, body)
}
