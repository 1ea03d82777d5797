/**
 * The form that creates or edits a draft request, with its lines editor. It works without JavaScript: each
 * line is a group of fields, blank lines are ignored, a box removes a line, and "Add a line" posts the form
 * back to be shown again with one more empty line (nothing is written). Beside the running total, the budgets
 * the lines would count against (views/budget-check.ts): refilled as the person types, or by "Check budgets".
 */
import { budgetCheckPanel, budgetCheckUrl, IDLE_CHECK, type BudgetCheckState } from './budget-check.ts'
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

/** The request's own fields and what people call them (lines are `lines.<n>.<field>`). */
export const REQUEST_LABELS: Readonly<Record<string, string>> = {
  location: 'Location',
  department: 'Department',
  currency: 'Currency',
  description: 'Description',
  needed_by: 'Needed by',
  lines: 'Lines',
}
export const LINE_FIELDS = ['description', 'vendor', 'quantity', 'unit_price', 'account'] as const
const LINE_LABELS: Readonly<Record<(typeof LINE_FIELDS)[number], string>> = {
  description: 'Item',
  vendor: 'Vendor',
  quantity: 'Quantity',
  unit_price: 'Unit price',
  account: 'Account',
}

/** The choices the form offers: where the user may request, the departments by location, currencies, vendors, accounts. */
export interface RequestChoices {
  location: readonly Option[]
  department: DepartmentGroups
  currency: readonly Option[]
  vendor: readonly Option[]
  account: readonly Option[]
}

/** One line of the editor: its five fields and a box that removes it, in a group named "Line n". */
function lineFields(i: number, form: FormState, { vendor: vendors, account: accounts }: RequestChoices): Html {
  const name = (f: string) => `lines.${i}.${f}`
  return html`<fieldset class="line">
    <legend>Line ${i + 1}</legend>
    ${input({ name: name('description'), label: 'Item', form, maxlength: 1000 })}
    ${select({ name: name('vendor'), label: 'Vendor', form, options: vendors, empty: 'No vendor' })}
    ${input({ name: name('quantity'), label: 'Quantity', form, maxlength: 21, hint: 'Needed on a line you fill in, e.g. 3 or 2.5' })}
    ${input({ name: name('unit_price'), label: 'Unit price', form, maxlength: 21, hint: 'Needed on a line you fill in, e.g. 19.99' })}
    ${select({ name: name('account'), label: 'Account', form, options: accounts, empty: 'No account' })}
    <div class="field checkbox">
      <input type="checkbox" id="f-lines-${i}-remove" name="${name('remove')}" value="on" />
      <label for="f-lines-${i}-remove">Remove line ${i + 1}</label>
    </div>
  </fieldset>`
}

/**
 * The create or edit form of a draft with `rows` lines in the editor; `budgets`: what the budget panel says
 * (what "Check budgets" found; the script refills it as the person types).
 */
export function requestFormView(
  form: FormState,
  rows: number,
  choices: RequestChoices,
  target: { action: string; title: string; cancel: string },
  { actor, csrf }: Frame,
  message?: string,
  budgets: BudgetCheckState = IDLE_CHECK,
): string {
  const checkUrl = budgetCheckUrl(target.action)
  const body = html`${errorSummary(form, lineEditorLabels(REQUEST_LABELS, LINE_LABELS, rows), message)}
  ${postForm(
    target.action,
    csrf,
    html`<input type="hidden" name="rows" value="${rows}" />
      <fieldset>
        <legend>Request</legend>
        ${select({ name: 'location', label: 'Location', form, options: choices.location, required: true })}
        ${departmentSelect(form, choices.department, 'It must belong to the location chosen above.')}
        ${select({ name: 'currency', label: 'Currency', form, options: choices.currency, empty: 'The location’s currency' })}
        ${textarea({ name: 'description', label: 'Description', form, rows: 2 })}
        ${input({ name: 'needed_by', label: 'Needed by', form, type: 'date' })}
      </fieldset>
      <fieldset>
        <legend>Lines</legend>
        <p class="hint">Lines left empty are ignored. Quantities and prices take up to 4 decimals.</p>
        ${(form.errors.lines ?? []).length === 0 ? '' : html`<p class="field-error" id="f-lines">${form.errors.lines!.join('; ')}</p>`}
        ${Array.from({ length: rows }, (_, i) => lineFields(i, form, choices))} ${runningTotal(form, rows)}
        ${budgetCheckPanel(budgets, checkUrl)}
      </fieldset>
      <p class="actions">
        <button type="submit" name="intent" value="save">Save draft</button>
        <button type="submit" name="intent" value="add" class="secondary">Add a line</button>
        <button type="submit" name="intent" value="check" formaction="${checkUrl}" class="secondary">
          Check budgets
        </button>
        <a href="${target.cancel}">Cancel</a>
      </p>`,
    html`novalidate`,
  )}`
  return page({ title: target.title, actor, csrf, current: 'requests' }, body)
}
