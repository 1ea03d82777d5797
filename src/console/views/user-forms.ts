/** A user's edit form, and the editor of their roles at locations (on the user's page). */
import { errorSummary, input, select, type FormState, type Option } from './forms.ts'
import { html, type Html } from './html.ts'
import { page, postForm, type Frame } from './layout.ts'

/** Each field of the edit form (the API's single-form names) and what people call it. */
export const USER_LABELS: Readonly<Record<string, string>> = {
  firstName: 'First name',
  lastName: 'Last name',
  role_id: 'Role',
  location: 'Home location',
  department: 'Department',
  phone: 'Phone',
  position: 'Position',
}

/** What the edit form offers: the tenant's roles, locations and departments (labelled with their location). */
export interface UserChoices {
  roles: readonly Option[]
  locations: readonly Option[]
  departments: readonly Option[]
}

export function userFormView(
  form: FormState,
  choices: UserChoices,
  target: { id: number; email: string; title: string },
  { actor, csrf }: Frame,
  general?: string,
): string {
  const f = (name: string, extra: Partial<Parameters<typeof input>[0]> = {}) =>
    input({ name, label: USER_LABELS[name]!, form, ...extra })
  const body = html`${errorSummary(form, USER_LABELS, general)}
    <p>E-mail: <strong>${target.email}</strong></p>
    ${postForm(
      `/console/users/${target.id}/edit`,
      csrf,
      html`<fieldset>
          <legend>Name</legend>
          ${f('firstName', { required: true, maxlength: 100, autocomplete: 'off' })}
          ${f('lastName', { required: true, maxlength: 100, autocomplete: 'off' })}
        </fieldset>
        <fieldset>
          <legend>Access</legend>
          ${select({
            name: 'role_id',
            label: USER_LABELS.role_id!,
            form,
            options: choices.roles,
            required: true,
            hint: 'What they may do everywhere. You can grant only what you hold yourself.',
          })}
          ${select({ name: 'location', label: USER_LABELS.location!, form, options: choices.locations, empty: 'None' })}
          ${select({
            name: 'department',
            label: USER_LABELS.department!,
            form,
            options: choices.departments,
            empty: 'None',
            hint: 'A department of the home location.',
          })}
        </fieldset>
        <fieldset>
          <legend>Contact</legend>
          ${f('phone', { type: 'tel', maxlength: 30 })} ${f('position', { maxlength: 100 })}
        </fieldset>
        <p class="actions">
          <button type="submit">Save user</button> <a href="/console/users/${target.id}">Cancel</a>
        </p>`,
      html`novalidate`,
    )}`
  return page({ title: target.title, actor, csrf, current: 'users' }, body)
}

/** The roles-at-locations editor: the tenant's locations, its roles, and the grants as form values. */
export interface GrantsEditor {
  locations: readonly { id: number; name: string }[]
  roles: readonly Option[]
  /**
   * `grant.<location id>.<n>` → role id ('' for none): one select per location, more where the user holds
   * several roles at one location, so saving never drops a grant the page did not show.
   */
  form: FormState
  /** A message for the whole editor (e.g. a refusal). */
  general?: string | undefined
}

/** The field names of one location's selects, in order (at least one). */
export function grantFields(form: FormState, location: number): string[] {
  const prefix = `grant.${location}.`
  const n = Object.keys(form.values).filter((k) => k.startsWith(prefix) && /^\d{1,3}$/.test(k.slice(prefix.length)))
  return Array.from({ length: Math.max(1, n.length) }, (_, i) => `${prefix}${i}`)
}

/** What people call each select of the editor. */
export function grantLabels(editor: Pick<GrantsEditor, 'locations' | 'form'>): Record<string, string> {
  const labels: Record<string, string> = {}
  for (const l of editor.locations)
    grantFields(editor.form, l.id).forEach((name, i) => {
      labels[name] = `${i === 0 ? 'Role' : 'Another role'} at ${l.name}`
    })
  return labels
}

export function grantsEditor(profileId: number, editor: GrantsEditor, csrf: string): Html {
  const labels = grantLabels(editor)
  return html`<section aria-labelledby="grants">
    <h2 id="grants">Roles at locations</h2>
    <p class="hint">
      Beyond their role, a user can hold a role at a location: it applies to that location's requests and approvals.
      Choose “None” to remove one.
    </p>
    ${errorSummary(editor.form, labels, editor.general)}
    ${
      editor.locations.length === 0
        ? html`<p class="empty">No locations yet. A Superuser can add them under Locations.</p>`
        : postForm(
            `/console/users/${profileId}/location-roles`,
            csrf,
            html`${Object.entries(labels).map(([name, label]) =>
                select({ name, label, form: editor.form, options: editor.roles, empty: 'None' }),
              )}
              <p class="actions"><button type="submit">Save roles at locations</button></p>`,
            html`novalidate`,
          )
    }
  </section>`
}
