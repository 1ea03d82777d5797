/**
 * Entering or editing a bill: the vendor's invoice number, its dates, and one row per line — for a bill from
 * an order, each order line with what was ordered, received and already billed beside it (quantity pre-filled
 * by the page; a blank quantity leaves the line off the bill), its unit price and tax rate.
 */
import { errorSummary, fieldId, input, type FormState } from './forms.ts'
import { html } from './html.ts'
import { page, postForm, type Frame } from './layout.ts'

/** One row of the form: an order line (with its counts) or a free line. */
export interface BillRow {
  po_line: number | null
  description: string
  ordered?: string
  received?: string
  billed?: string
}

export const BILL_LABELS: Readonly<Record<string, string>> = {
  number: 'Vendor’s invoice number',
  invoice_date: 'Invoice date',
  due_date: 'Due date',
}
export const ROW_FIELDS = ['po_line', 'description', 'quantity', 'unit_price', 'tax_rate'] as const

export interface BillFormView {
  title: string
  action: string
  back: { href: string; label: string }
  /** The vendor and order, said above the form. */
  heading: string
  rows: readonly BillRow[]
  form: FormState
  problem?: string | undefined
}

const rowLabel = (r: BillRow, i: number) => r.description || `line ${i + 1}`

export function billFormView(view: BillFormView, { actor, csrf }: Frame): string {
  const { form } = view
  const labels: Record<string, string> = { ...BILL_LABELS }
  view.rows.forEach((r, i) => {
    for (const [f, name] of [
      ['quantity', 'Quantity'],
      ['unit_price', 'Unit price'],
      ['tax_rate', 'Tax %'],
      ['description', 'Item'],
      ['po_line', 'Order line'],
    ])
      labels[`lines.${i}.${f}`] = `${name} (${rowLabel(r, i)})`
  })
  const cellInput = (i: number, f: string, label: string, size = 8) => {
    const name = `lines.${i}.${f}`
    const errors = form.errors[name] ?? []
    return html`<input
        id="${fieldId(name)}"
        name="${name}"
        inputmode="decimal"
        size="${size}"
        value="${form.values[name] ?? ''}"
        aria-label="${label}: ${rowLabel(view.rows[i]!, i)}"
        ${errors.length > 0 ? html`aria-invalid="true" aria-describedby="${fieldId(name)}-error"` : ''}
      />${errors.length > 0 ? html`<p class="field-error" id="${fieldId(name)}-error">${errors.join('; ')}</p>` : ''}`
  }
  const inner = html`<input type="hidden" name="rows" value="${view.rows.length}" />
    ${input({ name: 'number', label: BILL_LABELS.number!, form, required: true, maxlength: 100 })}
    ${input({ name: 'invoice_date', label: BILL_LABELS.invoice_date!, form, type: 'date' })}
    ${input({ name: 'due_date', label: BILL_LABELS.due_date!, form, type: 'date' })}
    <fieldset>
      <legend>Lines</legend>
      <p class="hint">A blank quantity leaves the line off the bill. Price and tax start as the order’s.</p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col" class="number">Ordered</th>
              <th scope="col" class="number">Received</th>
              <th scope="col" class="number">Billed before</th>
              <th scope="col">Quantity</th>
              <th scope="col">Unit price</th>
              <th scope="col">Tax %</th>
            </tr>
          </thead>
          <tbody>
            ${view.rows.map(
              (r, i) =>
                html`<tr>
                  <td>
                    <input type="hidden" name="lines.${i}.po_line" value="${r.po_line ?? ''}" />${
                      r.po_line === null
                        ? cellInput(i, 'description', 'Item', 24)
                        : html`${r.description || `Order line ${r.po_line}`}`
                    }
                  </td>
                  <td class="number">${r.ordered ?? '—'}</td>
                  <td class="number">${r.received ?? '—'}</td>
                  <td class="number">${r.billed ?? '—'}</td>
                  <td>${cellInput(i, 'quantity', 'Quantity')}</td>
                  <td>${cellInput(i, 'unit_price', 'Unit price')}</td>
                  <td>${cellInput(i, 'tax_rate', 'Tax %', 5)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </fieldset>
    <p class="actions">
      <button type="submit">Save as draft</button>
      <a href="${view.back.href}">${view.back.label}</a>
    </p>`
  const body = html`${errorSummary(form, labels, view.problem)}
    <p>${view.heading}</p>
    ${postForm(view.action, csrf, inner, html`novalidate`)}`
  return page({ title: view.title, actor, csrf, current: 'bills' }, body)
}
