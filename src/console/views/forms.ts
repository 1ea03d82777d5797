/**
 * Form fields as the console writes them: a visible label bound to its input (`for`/`id`), the value the
 * person typed kept after an error, the field's errors right under it (`aria-describedby`, `aria-invalid`),
 * and a summary of every error at the top that links to each field.
 */
import { lineTotal } from '../../core/decimal.ts'
import { decimal } from './format.ts'
import { html, type Html } from './html.ts'

/** Field errors by field name (the API's names, e.g. `primary_billing_address.city`). */
export type Errors = Readonly<Record<string, readonly string[]>>
/** What the person typed, by field name. */
export type Values = Readonly<Record<string, string | undefined>>

export interface FormState {
  values: Values
  errors: Errors
}

/** The id of a field's input: its name with anything but letters, digits and hyphens as hyphens. */
export const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9-]/g, '-')}`

interface FieldOptions {
  name: string
  label: string
  form: FormState
  hint?: string
  required?: boolean
}

function described(o: FieldOptions): { errorsHtml: Html; attributes: Html } {
  const id = fieldId(o.name)
  const errors = o.form.errors[o.name] ?? []
  const ids = [o.hint === undefined ? '' : `${id}-hint`, errors.length === 0 ? '' : `${id}-error`].filter(Boolean)
  return {
    errorsHtml: errors.length === 0 ? html`` : html`<p class="field-error" id="${id}-error">${errors.join('; ')}</p>`,
    attributes: html`id="${id}" name="${o.name}" ${o.required === true ? html`required` : ''}
    ${ids.length > 0 ? html`aria-describedby="${ids.join(' ')}"` : ''}
    ${errors.length > 0 ? html`aria-invalid="true"` : ''}`,
  }
}

const labelFor = (o: FieldOptions) =>
  html`<label for="${fieldId(o.name)}"
      >${o.label}${o.required === true ? '' : html` <span class="muted">(optional)</span>`}</label
    >
    ${o.hint === undefined ? '' : html`<p class="hint" id="${fieldId(o.name)}-hint">${o.hint}</p>`}`

export function input(
  o: FieldOptions & {
    type?: 'text' | 'email' | 'tel' | 'url' | 'date' | 'number'
    maxlength?: number
    autocomplete?: string
  },
): Html {
  const { errorsHtml, attributes } = described(o)
  return html`<div class="field">
    ${labelFor(o)}${errorsHtml}
    <input
      type="${o.type ?? 'text'}"
      ${attributes}
      value="${o.form.values[o.name] ?? ''}"
      ${o.maxlength === undefined ? '' : html`maxlength="${o.maxlength}"`}
      ${o.autocomplete === undefined ? '' : html`autocomplete="${o.autocomplete}"`}
    />
  </div>`
}

export function textarea(o: FieldOptions & { rows?: number }): Html {
  const { errorsHtml, attributes } = described(o)
  return html`<div class="field">
    ${labelFor(o)}${errorsHtml}
    <textarea ${attributes} rows="${o.rows ?? 3}">${o.form.values[o.name] ?? ''}</textarea>
  </div>`
}

export interface Option {
  value: string
  label: string
}

export function select(o: FieldOptions & { options: readonly Option[]; empty?: string }): Html {
  const { errorsHtml, attributes } = described(o)
  const current = o.form.values[o.name] ?? ''
  return html`<div class="field">
    ${labelFor(o)}${errorsHtml}
    <select ${attributes}>
      ${o.empty === undefined ? '' : html`<option value="">${o.empty}</option>`}
      ${o.options.map((opt) => html`<option value="${opt.value}" ${opt.value === current ? html`selected` : ''}>${opt.label}</option>`)}
    </select>
  </div>`
}

/**
 * Departments grouped by the location they belong to, as the order and request forms offer them; `locationId`
 * (the location's id as the location select's value) lets the form offer only the chosen location's.
 */
export type DepartmentGroups = readonly { location: string; locationId?: string; options: readonly Option[] }[]

/**
 * The optional department select of a document form: "None", then the departments of the location chosen in
 * the form (all locations' while none is chosen); `hint` says the rule. Without JavaScript the choice follows
 * the location when the form is shown again ("Add a line", or a refusal naming what to fix); the console's
 * script follows it live (`data-follows`).
 */
export function departmentSelect(form: FormState, groups: DepartmentGroups, hint: string): Html {
  const errors = form.errors.department ?? []
  const chosen = form.values.location ?? ''
  const offered = (g: DepartmentGroups[number]) =>
    chosen === '' || g.locationId === undefined || g.locationId === chosen
  return html`<div class="field">
    <label for="f-department">Department <span class="muted">(optional)</span></label>
    <p class="hint" id="f-department-hint">${hint}</p>
    ${errors.length === 0 ? '' : html`<p class="field-error" id="f-department-error">${errors.join('; ')}</p>`}
    <select
      id="f-department"
      name="department"
      data-follows="f-location"
      aria-describedby="f-department-hint${errors.length === 0 ? '' : ' f-department-error'}"
      ${errors.length === 0 ? '' : html`aria-invalid="true"`}
    >
      <option value="">None</option>
      ${groups.map(
        (group) =>
          html`<optgroup
            label="${group.location}"
            data-location="${group.locationId ?? ''}"
            ${offered(group) ? '' : html`hidden disabled`}
          >
            ${group.options.map((o) => html`<option value="${o.value}" ${o.value === form.values.department && offered(group) ? html`selected` : ''}>${o.label}</option>`)}
          </optgroup>`,
      )}
    </select>
  </div>`
}

/** A checkbox: checked when its value is "on" (what browsers send for a checked box). */
export function checkbox(o: FieldOptions): Html {
  const { errorsHtml, attributes } = described({ ...o, required: false })
  return html`<div class="field checkbox">
    <input type="checkbox" ${attributes} value="on" ${o.form.values[o.name] === 'on' ? html`checked` : ''} />
    <label for="${fieldId(o.name)}">${o.label}</label>${errorsHtml}
  </div>`
}

/**
 * The labels of a form with a line editor of `rows` lines, for its error summary: the form's own `top` labels,
 * and "Line n, <label>" for each field of each line (named `lines.<n - 1>.<field>`).
 */
export function lineEditorLabels(
  top: Readonly<Record<string, string>>,
  lineLabels: Readonly<Record<string, string>>,
  rows: number,
): Record<string, string> {
  const labels: Record<string, string> = { ...top }
  for (let i = 0; i < rows; i++)
    for (const [field, label] of Object.entries(lineLabels)) labels[`lines.${i}.${field}`] = `Line ${i + 1}, ${label}`
  return labels
}

/** Every error of the form at its top, each linking to its field; nothing when there is none. */
export function errorSummary(form: FormState, labels: Readonly<Record<string, string>>, general?: string): Html {
  const entries = Object.entries(form.errors).filter(([, messages]) => messages.length > 0)
  if (entries.length === 0 && general === undefined) return html``
  return html`<div class="notice alert error-summary" role="alert" tabindex="-1" id="error-summary">
    <h2>There is a problem</h2>
    ${general === undefined ? '' : html`<p>${general}</p>`}
    <ul>
      ${entries.map(
        ([name, messages]) =>
          html`<li><a href="#${fieldId(name)}">${labels[name] ?? name}: ${messages.join('; ')}</a></li>`,
      )}
    </ul>
  </div>`
}

/**
 * The running total of a lines editor: Σ quantity × unit price of the lines typed so far (lines not yet
 * numbers count nothing), in the currency chosen (or the location's). The console's script keeps it up to
 * date while lines are typed (`data-running-total`); without it, it is right whenever the form is shown.
 */
export function runningTotal(form: FormState, rows: number): Html {
  const number = /^\d{1,16}(\.\d{1,4})?$/
  const lines = Array.from({ length: rows }, (_, i) => ({
    quantity: (form.values[`lines.${i}.quantity`] ?? '').trim(),
    unit_price: (form.values[`lines.${i}.unit_price`] ?? '').trim(),
  })).filter((l) => number.test(l.quantity) && number.test(l.unit_price))
  const currency = form.values.currency ?? ''
  return html`<p class="running-total" aria-live="polite">
    Total of the lines: <output id="running-total" data-running-total>${decimal(lineTotal(lines))}</output>
    <span data-running-currency>${currency === '' ? 'in the location’s currency' : currency}</span>
  </p>`
}
