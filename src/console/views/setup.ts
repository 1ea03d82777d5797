/**
 * Settings → Set-up: the pages an administrator sets a company up with (departments, currencies, the vendor
 * look-ups, roles, approval rules). Each is a list with an "Add" form and an edit page per row, drawn from
 * one description of its fields, so they all look and behave alike; beside them, deleting a role no one holds
 * (or saying who holds it) and the procurement settings' own page.
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

/** One row's edit page; `after` is what follows the form (a role's "Delete" section). */
export function setupEditView(
  title: string,
  back: string,
  form: FormSpec,
  { actor, csrf }: Frame,
  after: Html | string = '',
): string {
  const body = html`<p class="actions"><a href="${back}">Back to the list</a></p>
    ${setupForm(form, csrf)} ${after}`
  return page({ title, actor, csrf, current: 'setup' }, body)
}

/** Someone who holds a role: as their own role (`own`) and/or at the locations named in `at`. */
export interface RoleHolder {
  id: number
  name: string
  email: string
  active: boolean
  own: boolean
  at: readonly string[]
  /** Held tenant-wide by a grant that is not their own role. */
  everywhere: boolean
}

export interface DeleteRoleSpec {
  role: { id: number; name: string; permissions: string }
  /** Who holds it (the first of them, when there are many); `total` counts them all. */
  holders: readonly RoleHolder[]
  total: number
  /** Why this person may not delete it (the service's 403, in its words), said instead of anything else. */
  refusal?: string | undefined
  /** Where the role's pages are (`…/setup/roles`). */
  base: string
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** How a holder holds the role, in words: "as their role", "at Berlin Office", "everywhere". */
function holdsIt(h: RoleHolder): string {
  const ways = [
    ...(h.own ? ['as their role'] : []),
    ...(h.everywhere ? ['at every location'] : []),
    ...(h.at.length === 0 ? [] : [`at ${h.at.join(', ')}`]),
  ]
  return ways.join('; ')
}

/**
 * Deleting a role: who holds it (then it is not deleted — each holder needs another role first, on their
 * page), the reason it may not be deleted by this person, or the question with the Delete button.
 */
export function deleteRoleView(spec: DeleteRoleSpec, { actor, csrf }: Frame): string {
  const { role, holders, total } = spec
  const self = `${spec.base}/${role.id}`
  const quoted = `“${role.name}”`
  const more = total - holders.length
  const back = html`<p class="actions"><a href="${self}">Back to the role</a></p>`
  const held = html`${notice(
      'alert',
      html`<p>
        The role ${quoted} cannot be deleted: ${plural(total, 'person holds', 'people hold')} it. Reassign them first:
        open each person below (Users), give them another role — their own role under Edit, their roles at locations on
        their page — and then delete this role.
      </p>`,
    )}
    <h2 id="holders">Who holds it</h2>
    <ul aria-labelledby="holders">
      ${holders.map(
        (h) =>
          html`<li>
            <a href="/console/users/${h.id}">${h.name}</a> (${h.email})${h.active ? '' : ' (deactivated)'} —
            ${holdsIt(h)}
          </li>`,
      )}
    </ul>
    ${
      more > 0
        ? html`<p>
            And ${plural(more, 'other person', 'other people')}: find them under Users, and give each another role.
          </p>`
        : ''
    }
    ${back}`
  const ask = html`<p>
      Delete the role ${quoted} (${role.permissions})? No one holds it. It is gone for good: to use it again, add it
      again under Roles.
    </p>
    ${postForm(
      `${self}/delete`,
      csrf,
      html`<button type="submit" class="danger">Delete role</button> <a href="${self}">Cancel</a>`,
    )}`
  const body = spec.refusal !== undefined ? html`${notice('alert', spec.refusal)} ${back}` : total > 0 ? held : ask
  return page({ title: `Delete role: ${role.name}`, actor, csrf, current: 'setup' }, body)
}

export interface SettingsSpec {
  intro: string
  form: FormSpec
  flash?: string | undefined
}

/** The procurement settings: one form (tolerances, matching, the receipt threshold), each field explained. */
export function procurementSettingsView(spec: SettingsSpec, { actor, csrf }: Frame): string {
  const body = html`${spec.flash === undefined ? '' : notice('status', spec.flash)}
    <p class="actions"><a href="/console/settings/setup">All set-up pages</a></p>
    <p>${spec.intro}</p>
    ${setupForm(spec.form, csrf)}`
  return page({ title: 'Procurement settings', actor, csrf, current: 'setup' }, body)
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
