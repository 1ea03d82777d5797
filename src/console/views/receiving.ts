/**
 * Receiving in the console: the form for one order (quantities accepted and rejected per open line, the
 * packing slip) and the order's receipts, each with its void.
 */
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import type { Receipt } from '../../receipts/schema.ts'
import { quantity, when } from './format.ts'
import { html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, table } from './lists.ts'
import { statusName } from './orders.ts'

export function receivingView(
  o: PurchaseOrder,
  receipts: Receipt[],
  form: { values: Record<string, string>; problem?: string | undefined; flash?: string | undefined },
  { actor, csrf }: Frame,
): string {
  const open = o.lines.filter((l) => !l.closed)
  const field = (name: string) => form.values[name] ?? ''
  const body = html`${form.flash === undefined ? '' : notice('status', form.flash)}
    ${form.problem === undefined ? '' : notice('alert', form.problem)}
    <p class="actions"><a href="/console/orders/${o.id}">Back to ${o.number}</a></p>
    ${
      o.status !== 'issued'
        ? notice('status', `This order is ${statusName(o.status).toLowerCase()}: nothing can be received against it.`)
        : postForm(
            `/console/orders/${o.id}/receive`,
            csrf,
            html`<fieldset>
                <legend>Goods received from ${o.vendor.name}</legend>
                <label for="packing_slip">Packing slip</label>
                <input id="packing_slip" name="packing_slip" value="${field('packing_slip')}" maxlength="200" />
                <div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Item</th>
                        <th scope="col" class="number">Ordered</th>
                        <th scope="col" class="number">Received so far</th>
                        <th scope="col">Accepted now</th>
                        <th scope="col">Rejected now</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${open.map(
                        (l) =>
                          html`<tr>
                            <td>${l.description || `Line ${l.id}`}</td>
                            <td class="number">${quantity(l.quantity)}</td>
                            <td class="number">${quantity(l.received_quantity)}</td>
                            <td>
                              <input
                                name="accepted.${l.id}"
                                inputmode="decimal"
                                size="8"
                                value="${field(`accepted.${l.id}`)}"
                                aria-label="Accepted now: ${l.description || `line ${l.id}`}"
                              />
                            </td>
                            <td>
                              <input
                                name="rejected.${l.id}"
                                inputmode="decimal"
                                size="8"
                                value="${field(`rejected.${l.id}`)}"
                                aria-label="Rejected now: ${l.description || `line ${l.id}`}"
                              />
                            </td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                </div>
              </fieldset>
              <button type="submit">Post receipt</button>`,
          )
    }
    <section aria-labelledby="receipts">
      <h2 id="receipts">Receipts</h2>
      ${
        receipts.length === 0
          ? emptyState('Nothing received yet.')
          : table(
              ['Receipt', 'Type', 'Status', 'Packing slip', 'Lines', 'When', ''],
              receipts.map(
                (r) =>
                  html`<tr>
                    <td><a href="/console/receipts/${r.id}">${r.number}</a></td>
                    <td>${r.type === 'return' ? 'Return' : 'Receipt'}</td>
                    <td>${r.status === 'voided' ? 'Voided' : 'Posted'}</td>
                    <td>${r.packing_slip || '—'}</td>
                    <td>
                      ${r.lines.map((l) => `${l.accepted_quantity} accepted, ${l.rejected_quantity} rejected`).join('; ')}
                    </td>
                    <td>${when(r.received_at)}</td>
                    <td>
                      ${
                        r.status === 'posted'
                          ? postForm(
                              `/console/receipts/${r.id}/void`,
                              csrf,
                              html`<button type="submit" class="secondary" aria-label="Void ${r.number}">Void</button>`,
                              html`class="inline"`,
                            )
                          : ''
                      }
                    </td>
                  </tr>`,
              ),
            )
      }
    </section>`
  return page({ title: `Receive ${o.number}`, actor, csrf, current: 'receiving' }, body)
}
