/**
 * Settings → Webhooks: the endpoints with their state (and why one was disabled), the form that adds one, a
 * new signing secret shown once, and one endpoint's page with its deliveries.
 */
import type { Page } from '../../core/list-query.ts'
import type { WebhookDelivery } from '../../webhooks/schema.ts'
import type { EndpointState } from '../../webhooks/service.ts'
import { when } from './format.ts'
import { errorSummary, input, textarea, type FormState } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState } from './lists.ts'

export const WEBHOOK_BASE = '/console/settings/webhooks'

export const WEBHOOK_LABELS: Readonly<Record<string, string>> = {
  url: 'URL',
  event_types: 'Event types',
  description: 'Description',
}

/** A new signing secret: shown this once, with a copy button. */
export function secretView(secret: string, title: string): Html {
  return html`<section aria-labelledby="new-secret" class="card">
    <h2 id="new-secret">${title}</h2>
    ${notice('alert', html`<strong>Copy the signing secret now.</strong> It is shown only this once; your receiver needs it to verify every delivery.`)}
    <div class="credential">
      <span>Signing secret:</span>
      <code id="webhook-secret" class="secret" data-testid="webhook-secret">${secret}</code>
      <button type="button" class="secondary" data-copy="webhook-secret" data-label="Signing secret">
        Copy signing secret
      </button>
    </div>
    <p id="copy-status" role="status" class="muted"></p>
  </section>`
}

const stateOf = (e: EndpointState): string => (e.enabled ? 'Enabled' : 'Disabled')
const typesOf = (e: EndpointState): string => (e.event_types.includes('*') ? 'every event' : e.event_types.join(', '))

/** Why an endpoint is disabled, in words, when the service disabled it (not a person). */
function disabledNote(e: EndpointState): Html | string {
  if (e.enabled || e.disabled_reason === null) return ''
  return html`Disabled ${when(e.disabled_at)}: ${e.disabled_reason}. Fix the receiver, then enable it again.`
}

/** The endpoints (oldest first) and the form that adds one; `top` above them. */
export function webhooksView(rows: readonly EndpointState[], form: FormState, frame: Frame, top: Html | string = '') {
  const { actor, csrf } = frame
  const stopped = rows.filter((e) => !e.enabled && e.disabled_reason !== null)
  const body = html`${top}
    ${stopped.map((e) => notice('alert', html`<a href="${WEBHOOK_BASE}/${e.id}">${e.url}</a>: ${disabledNote(e)}`))}
    <section aria-labelledby="endpoints">
      <h2 id="endpoints">Endpoints</h2>
      ${
        rows.length === 0
          ? emptyState('No endpoints yet. Add one below to have every change pushed to your integration as it happens.')
          : html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">URL</th>
                    <th scope="col">Events</th>
                    <th scope="col">Description</th>
                    <th scope="col">State</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  ${rows.map(
                    (e) =>
                      html`<tr data-href="${WEBHOOK_BASE}/${e.id}">
                        <td><a href="${WEBHOOK_BASE}/${e.id}">${e.url}</a></td>
                        <td>${typesOf(e)}</td>
                        <td>${e.description || '—'}</td>
                        <td>${stateOf(e)}</td>
                        <td>${when(e.created_at)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
    <section aria-labelledby="add">
      <h2 id="add">Add an endpoint</h2>
      <p class="muted">
        Each event is POSTed to the URL, signed as Standard Webhooks specifies; see the webhooks guide for a receiver.
      </p>
      <p class="muted" id="webhook-local">
        A receiver on this machine or a private network (such as <code>http://localhost:4000/</code>) is refused unless
        the operator allows it: <code>WEBHOOK_ALLOW_HTTP=true</code> for <code>http://</code> URLs and
        <code>WEBHOOK_ALLOW_PRIVATE_NETWORKS=true</code> for private addresses — both explained in the webhooks guide
        (<code>docs/webhooks.md</code>, “Webhook endpoints”) and the <a href="/docs/">API reference</a>.
      </p>
      ${errorSummary(form, WEBHOOK_LABELS)}
      ${postForm(
        WEBHOOK_BASE,
        csrf,
        html`${input({ name: 'url', label: WEBHOOK_LABELS.url!, form, required: true, type: 'url', maxlength: 2000, hint: 'https://, reachable from the internet.' })}
          ${input({ name: 'event_types', label: WEBHOOK_LABELS.event_types!, form, hint: 'Comma-separated: vendor.created, user.*, … Empty for every event.' })}
          ${textarea({ name: 'description', label: WEBHOOK_LABELS.description!, form, rows: 2 })}
          <p><button type="submit">Add endpoint</button></p>`,
      )}
    </section>`
  return page({ title: 'Webhooks', actor, csrf, current: 'webhooks' }, body)
}

const deliveryState = { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' } as const

/** The last attempt of a delivery in words: its answer, or its error. */
function lastAttempt(d: WebhookDelivery): string {
  const last = d.attempts.at(-1)
  if (last === undefined) return 'not tried yet'
  const answer = last.response_status === null ? (last.error ?? 'no answer') : `HTTP ${last.response_status}`
  return `${answer} in ${last.duration_ms} ms`
}

/** One endpoint: its settings, enable/disable, rotate, delete, and its deliveries (newest first) with retry. */
export function webhookView(
  e: EndpointState,
  deliveries: Page<WebhookDelivery>,
  frame: Frame,
  top: Html | string = '',
): string {
  const { actor, csrf } = frame
  const self = `${WEBHOOK_BASE}/${e.id}`
  const pages = Math.max(1, Math.ceil(deliveries.count / deliveries.page.pageSize))
  const body = html`${top} ${e.enabled || e.disabled_reason === null ? '' : notice('alert', disabledNote(e))}
    <p><a href="${WEBHOOK_BASE}">← All endpoints</a></p>
    <dl>
      <dt>URL</dt>
      <dd><code>${e.url}</code></dd>
      <dt>Events</dt>
      <dd>${typesOf(e)}</dd>
      <dt>Description</dt>
      <dd>${e.description || '—'}</dd>
      <dt>State</dt>
      <dd>${stateOf(e)}</dd>
      <dt>Created</dt>
      <dd>${when(e.created_at)}</dd>
    </dl>
    <div class="actions">
      ${postForm(
        `${self}/${e.enabled ? 'disable' : 'enable'}`,
        csrf,
        html`<button type="submit" class="secondary">${e.enabled ? 'Disable' : 'Enable'}</button>`,
        html`class="inline"`,
      )}
      ${postForm(
        `${self}/rotate`,
        csrf,
        html`<button type="submit" class="secondary">Rotate secret</button>`,
        html`class="inline"`,
      )}
      <a class="button danger" href="${self}/delete">Delete</a>
    </div>
    <p class="muted">After a rotation the old secret keeps signing beside the new one for 24 hours.</p>
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries</h2>
      ${
        deliveries.rows.length === 0
          ? emptyState('No deliveries yet: they appear here as events happen.')
          : html`<div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Event</th>
                      <th scope="col">State</th>
                      <th scope="col">Attempts</th>
                      <th scope="col">Last attempt</th>
                      <th scope="col">Next attempt</th>
                      <th scope="col">Created</th>
                      <th scope="col"><span class="muted">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${deliveries.rows.map(
                      (d) =>
                        html`<tr>
                          <td>${d.event_type} <code class="muted">${d.event}</code></td>
                          <td>${deliveryState[d.status]}</td>
                          <td>${d.attempts.length}</td>
                          <td>${lastAttempt(d)}</td>
                          <td>${when(d.next_attempt_at)}</td>
                          <td>${when(d.created_at)}</td>
                          <td>
                            ${postForm(
                              `${self}/deliveries/${d.id}/retry`,
                              csrf,
                              html`<button type="submit" class="secondary" aria-label="Retry delivery ${d.id}">
                                Retry
                              </button>`,
                              html`class="inline"`,
                            )}
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              <p class="muted">
                Page ${deliveries.page.page} of ${pages} · ${deliveries.count} in all
                ${deliveries.page.page > 1 ? html` · <a href="${self}?page=${deliveries.page.page - 1}">Newer</a>` : ''}
                ${deliveries.page.page < pages ? html` · <a href="${self}?page=${deliveries.page.page + 1}">Older</a>` : ''}
              </p>`
      }
    </section>`
  return page({ title: 'Webhook endpoint', actor, csrf, current: 'webhooks' }, body)
}

/** Asks before deleting (a GET that changes nothing). */
export function deleteWebhookView(e: EndpointState, { actor, csrf }: Frame): string {
  const self = `${WEBHOOK_BASE}/${e.id}`
  const body = html`<p>
      Delete the endpoint <code>${e.url}</code>? It gets no more deliveries, and its delivery history is deleted with
      it.
    </p>
    ${postForm(`${self}/delete`, csrf, html`<button type="submit" class="danger">Delete endpoint</button> <a href="${self}">Cancel</a>`)}`
  return page({ title: 'Delete webhook endpoint', actor, csrf, current: 'webhooks' }, body)
}
