/**
 * The form that makes a purchase order by hand, edits a draft, or revises an issued order, with its lines
 * editor. It works without JavaScript: blank lines are ignored, a box removes a line, "Add a line" shows the
 * form again with one more (nothing is written). A revision keeps the vendor and location (the API refuses
 * to change them) and carries the version it was opened at, so a change made meanwhile is refused.
 */
import {
  departmentSelect,
  errorSummary,
  input,
  lineEditorLabels,
  runningTotal,
  select,
  textarea,
  type DepartmentGroups,
  type FormState,
  type Option,
} from './forms.ts'
import { html, type Html } from './html.ts'
import { page, postForm, type Frame } from './layout.ts'

/** The order's own fields and what people call them (lines are `lines.<n>.<field>`). */
export const ORDER_LABELS: Readonly<Record<string, string>> = {
  vendor: 'Vendor',
  location: 'Location',
  department: 'Department',
  currency: 'Currency',
  promise_date: 'Promised for',
  notes: 'Notes',
  lines: 'Lines',
}
export const ORDER_LINE_FIELDS = ['id', 'description', 'quantity', 'unit_price', 'tax_rate'] as const
const LINE_LABELS: Readonly<Record<string, string>> = {
  description: 'Item',
  quantity: 'Quantity',
  unit_price: 'Unit price',
  tax_rate: 'Tax %',
}

/** What the form offers: vendors, locations where the user may buy, departments by location, currencies. */
export interface OrderChoices {
  vendor: readonly Option[]
  location: readonly Option[]
  department: DepartmentGroups
  currency: readonly Option[]
}

/** Where the form posts and what it is: `revision` keeps vendor and location as they are (shown as text). */
export interface OrderTarget {
  action: string
  title: string
  cancel: string
  submit: string
  revision?: { vendor: string; location: string } | undefined
}

function lineFields(i: number, form: FormState): Html {
  const name = (f: string) => `lines.${i}.${f}`
  return html`<fieldset class="line">
    <legend>Line ${i + 1}</legend>
    <input type="hidden" name="${name('id')}" value="${form.values[name('id')] ?? ''}" />
    ${input({ name: name('description'), label: 'Item', form, maxlength: 1000 })}
    ${input({ name: name('quantity'), label: 'Quantity', form, maxlength: 21, hint: 'Needed on a line you fill in, e.g. 3 or 2.5' })}
    ${input({ name: name('unit_price'), label: 'Unit price', form, maxlength: 21, hint: 'Needed on a line you fill in, e.g. 19.99' })}
    ${input({ name: name('tax_rate'), label: 'Tax %', form, maxlength: 21, hint: 'A percentage, e.g. 8.25; empty for none' })}
    <div class="field checkbox">
      <input type="checkbox" id="f-lines-${i}-remove" name="${name('remove')}" value="on" />
      <label for="f-lines-${i}-remove">Remove line ${i + 1}</label>
    </div>
  </fieldset>`
}

/** The new, edit or revise form with `rows` lines in the editor; `message` is the refusal said at the top. */
export function orderFormView(
  form: FormState,
  rows: number,
  choices: OrderChoices,
  target: OrderTarget,
  { actor, csrf }: Frame,
  message?: string,
): string {
  const fixed = target.revision
  const parties =
    fixed === undefined
      ? html`${select({ name: 'vendor', label: 'Vendor', form, options: choices.vendor, required: true, empty: 'Choose a vendor' })}
        ${select({ name: 'location', label: 'Location', form, options: choices.location, required: true, empty: 'Choose a location' })}`
      : html`<input type="hidden" name="vendor" value="${form.values.vendor ?? ''}" />
          <input type="hidden" name="location" value="${form.values.location ?? ''}" />
          <input type="hidden" name="version" value="${form.values.version ?? ''}" />
          <p>
            Vendor: <strong>${fixed.vendor}</strong> · Location: <strong>${fixed.location}</strong>
            <span class="hint">(an issued order keeps them; cancel it and make another to change them)</span>
          </p>`
  const body = html`${errorSummary(form, lineEditorLabels(ORDER_LABELS, LINE_LABELS, rows), message)}
  ${postForm(
    target.action,
    csrf,
    html`<input type="hidden" name="rows" value="${rows}" />
      <fieldset>
        <legend>Order</legend>
        ${parties} ${departmentSelect(form, choices.department, 'It must belong to the order’s location.')}
        ${select({ name: 'currency', label: 'Currency', form, options: choices.currency, empty: 'The location’s currency' })}
        ${input({ name: 'promise_date', label: 'Promised for', form, type: 'date', hint: 'The date the vendor promised delivery' })}
        ${textarea({ name: 'notes', label: 'Notes', form, rows: 2 })}
      </fieldset>
      <fieldset>
        <legend>Lines</legend>
        <p class="hint">Lines left empty are ignored. Quantities, prices and tax take up to 4 decimals.</p>
        ${(form.errors.lines ?? []).length === 0 ? '' : html`<p class="field-error" id="f-lines">${form.errors.lines!.join('; ')}</p>`}
        ${Array.from({ length: rows }, (_, i) => lineFields(i, form))} ${runningTotal(form, rows)}
      </fieldset>
      <p class="actions">
        <button type="submit" name="intent" value="save">${target.submit}</button>
        <button type="submit" name="intent" value="add" class="secondary">Add a line</button>
        <a href="${target.cancel}">Cancel</a>
      </p>`,
    html`novalidate`,
  )}`
  return page({ title: target.title, actor, csrf, current: 'orders' }, body)
}
