/**
 * Settings → Set-up: the pages an administrator sets a company up with (departments, currencies, the vendor
 * look-ups, roles, approval rules). Each is a list with an "Add" form and an edit page per row, drawn from
 * one description of its fields, so they all look and behave alike.
 */
import { checkbox, errorSummary, input, select, textarea, type FormState, type Option } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, table } from './lists.ts'

export type Field =
  | { kind: 'text'; name: string; label: string; hint?: string; required?: boolean; maxlength?: number }
  | { kind: 'textarea'; name: string; label: string; hint?: string }
  | {
      kind: 'select'
      name: string
      label: string
      hint?: string
      options: readonly Option[]
      empty?: string
      required?: boolean
    }
  | { kind: 'checkbox'; name: string; label: string }
  /** A group of checkboxes named `<name>.<value>`, one per option. */
  | { kind: 'checkboxes'; name: string; label: string; hint?: string; options: readonly Option[] }

/** The labels of a form's fields (checkbox groups' members under their group's name), for the error summary. */
const labelsOf = (fields: readonly Field[]): Record<string, string> =>
  Object.fromEntries(fields.map((f) => [f.name, f.label]))

function field(f: Field, form: FormState): Html {
  switch (f.kind) {
    case 'text':
      return input({ ...f, form, ...(f.maxlength === undefined ? {} : { maxlength: f.maxlength }) })
    case 'textarea':
      return textarea({ ...f, form, rows: 2 })
    case 'select':
      return select({ ...f, form })
    case 'checkbox':
      return checkbox({ ...f, form })
    case 'checkboxes': {
      const errors = form.errors[f.name] ?? []
      return html`<fieldset class="field checkboxes" id="f-${f.name}">
        <legend>${f.label}</legend>
        ${f.hint === undefined ? '' : html`<p class="hint">${f.hint}</p>`}
        ${errors.length === 0 ? '' : html`<p class="field-error">${errors.join('; ')}</p>`}
        ${f.options.map((o) => checkbox({ name: `${f.name}.${o.value}`, label: o.label, form }))}
      </fieldset>`
    }
  }
}

export interface FormSpec {
  action: string
  fields: readonly Field[]
  state: FormState
  submit: string
  /** The refusal to say above the form (a 409's reason, or the form's general message). */
  problem?: string | undefined
}

export function setupForm(spec: FormSpec, csrf: string): Html {
  const { state } = spec
  const hasErrors = Object.keys(state.errors).length > 0
  return html`${
    hasErrors
      ? errorSummary(state, labelsOf(spec.fields), spec.problem)
      : spec.problem === undefined
        ? ''
        : notice('alert', spec.problem)
  }
  ${postForm(
    spec.action,
    csrf,
    html`${spec.fields.map((f) => field(f, state))}
      <p class="actions"><button type="submit">${spec.submit}</button></p>`,
    html`novalidate`,
  )}`
}

export interface ListSpec {
  title: string
  intro: string
  headings: string[]
  rows: Html[]
  empty: string
  /** The "Add" form; absent for someone who may only read. */
  add?: FormSpec | undefined
  flash?: string | undefined
}

/** A set-up list: what it is for, its rows (each with an edit link), and the form to add one. */
export function setupListView(spec: ListSpec, { actor, csrf }: Frame): string {
  const body = html`${spec.flash === undefined ? '' : notice('status', spec.flash)}
    <p class="actions"><a href="/console/settings/setup">All set-up pages</a></p>
    <p>${spec.intro}</p>
    ${spec.rows.length === 0 ? emptyState(spec.empty) : table(spec.headings, spec.rows)}
    ${
      spec.add === undefined
        ? ''
        : html`<section aria-labelledby="add">
            <h2 id="add">Add</h2>
            ${setupForm(spec.add, csrf)}
          </section>`
    }`
  return page({ title: spec.title, actor, csrf, current: 'setup' }, body)
}

/** One row's edit page. */
export function setupEditView(title: string, back: string, form: FormSpec, { actor, csrf }: Frame): string {
  const body = html`<p class="actions"><a href="${back}">Back to the list</a></p>
    ${setupForm(form, csrf)}`
  return page({ title, actor, csrf, current: 'setup' }, body)
}

/** The set-up index: one link per page, with what each is for. */
export function setupIndexView(pages: readonly { href: string; label: string; what: string }[], frame: Frame): string {
  const body = html`<p>Everything a company needs before its first request, without SQL.</p>
    <ul class="setup-index">
      ${pages.map((p) => html`<li><a href="${p.href}">${p.label}</a> — ${p.what}</li>`)}
    </ul>`
  return page({ title: 'Set-up', actor: frame.actor, csrf: frame.csrf, current: 'setup' }, body)
}

/** "Active" or "Inactive", for a row. */
export const activeText = (active: boolean) => (active ? 'Active' : 'Inactive')
