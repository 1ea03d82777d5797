/** Locations: the list, one location with its addresses, and the form that creates or edits one. */
import type { Actor } from '../../access/actor.ts'
import type { Page } from '../../core/list-query.ts'
import type { LocationView } from '../../locations/schema.ts'
import { errorSummary, input, select, type FormState, type Option } from './forms.ts'
import { addressText } from './format.ts'
import { html, safeHref, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, pager, searchForm, table } from './lists.ts'

const ADDRESS_FIELDS = [
  ['name', 'Address name'],
  ['addressLineOne', 'Street address'],
  ['city', 'City'],
  ['state_province', 'State or province'],
  ['postalCode', 'Postal code'],
  ['country', 'Country'],
] as const
export const ADDRESS_KEYS = ADDRESS_FIELDS.map(([key]) => key)

/** Each field of the location form and what people call it (addresses: `<which>.<field>`). */
export function locationLabels(alternates: number): Record<string, string> {
  const labels: Record<string, string> = {
    name: 'Name',
    external_id: 'External ID',
    phoneOne: 'Phone',
    fax: 'Fax',
    email: 'E-mail',
    url: 'Website',
    currency: 'Currency',
    legal_entity: 'Legal entity',
    locationTimezone: 'Time zone',
  }
  const address = (prefix: string, title: string) => {
    for (const [key, label] of ADDRESS_FIELDS) labels[`${prefix}.${key}`] = `${title}: ${label.toLowerCase()}`
  }
  address('primary_billing_address', 'Billing address')
  address('primary_shipping_address', 'Shipping address')
  for (let i = 0; i < alternates; i++) address(`shipping_addresses.${i}`, `Other shipping address ${i + 1}`)
  return labels
}

const canWrite = (actor: Actor) => actor.permissions.has('superuser')

export function locationsView(
  result: Page<LocationView>,
  search: string | undefined,
  { actor, csrf }: Frame,
  flash?: string,
): string {
  const body = html`${flash === undefined ? '' : notice('status', flash)}
  ${canWrite(actor) ? html`<p class="actions"><a class="button" href="/console/locations/new">New location</a></p>` : ''}
  ${searchForm('/console/locations', 'Search locations by name', search)}
  ${
    result.count === 0
      ? emptyState(
          search === undefined ? 'No locations yet. A Superuser can add them.' : `No location matches “${search}”.`,
        )
      : html`${table(
          ['Name', 'Currency', 'City', 'Departments', 'State'],
          result.rows.map(
            (l) =>
              html`<tr data-href="/console/locations/${l.id}">
                <td>
                  <a href="/console/locations/${l.id}">${l.name}</a>${
                    l.headquarter ? html` <span class="tag">Headquarters</span>` : ''
                  }
                </td>
                <td>${l.currency.name}</td>
                <td>${l.primary_shipping_address.city}</td>
                <td>${l.department_count}</td>
                <td>${l.active ? 'Active' : 'Inactive'}</td>
              </tr>`,
          ),
        )}
        ${pager('/console/locations', result, search)}`
  }`
  return page({ title: 'Locations', actor, csrf, current: 'locations' }, body)
}

export function locationView(location: LocationView, { actor, csrf }: Frame, flash?: string): string {
  const body = html`${flash === undefined ? '' : notice('status', flash)}
    <p class="actions">
      ${canWrite(actor) ? html`<a class="button" href="/console/locations/${location.id}/edit">Edit</a>` : ''}
      <a href="/console/locations">All locations</a>
    </p>
    <section aria-labelledby="details">
      <h2 id="details">Details</h2>
      <dl>
        <dt>State</dt>
        <dd>${location.active ? 'Active' : 'Inactive'}${location.headquarter ? ' · Headquarters' : ''}</dd>
        <dt>External ID</dt>
        <dd>${location.external_id || '—'}</dd>
        <dt>Phone</dt>
        <dd>${location.phoneOne || '—'}</dd>
        <dt>E-mail</dt>
        <dd>${location.email || '—'}</dd>
        <dt>Website</dt>
        <dd>
          ${location.url === '' ? '—' : html`<a href="${safeHref(location.url)}" rel="noopener noreferrer">${location.url}</a>`}
        </dd>
        <dt>Currency</dt>
        <dd>${location.currency.name} (${location.currency.description})</dd>
        <dt>Legal entity</dt>
        <dd>${location.legal_entity?.name ?? '—'}</dd>
        <dt>Time zone</dt>
        <dd>${location.locationTimezone || '—'}</dd>
        <dt>Departments</dt>
        <dd>${location.department_count}</dd>
      </dl>
    </section>
    <section aria-labelledby="addresses">
      <h2 id="addresses">Addresses</h2>
      <dl>
        <dt>Billing</dt>
        <dd>
          ${location.primary_billing_address.name}: ${addressText({ ...location.primary_billing_address, name: null })}
        </dd>
        <dt>Shipping</dt>
        <dd>
          ${location.primary_shipping_address.name}:
          ${addressText({ ...location.primary_shipping_address, name: null })}
        </dd>
        ${location.shipping_addresses.map(
          (a) =>
            html`<dt>Other shipping</dt>
              <dd>${a.name}: ${addressText({ ...a, name: null })}</dd>`,
        )}
      </dl>
    </section>`
  return page({ title: location.name, actor, csrf, current: 'locations' }, body)
}

function addressFieldset(prefix: string, legend: string, form: FormState, extra: Html = html``): Html {
  return html`<fieldset>
    <legend>${legend}</legend>
    ${ADDRESS_FIELDS.map(([key, label]) =>
      input({ name: `${prefix}.${key}`, label, form, required: key !== 'state_province' }),
    )}
    ${extra}
  </fieldset>`
}

export interface LocationChoices {
  currency: readonly Option[]
  legal_entity: readonly Option[]
}

/**
 * The create or edit form. Alternate shipping addresses are numbered fieldsets (`shipping_addresses.<n>.…`,
 * an existing one carries its id and a "remove" box); "Add another shipping address" posts the form back to
 * itself with one more, writing nothing.
 */
export function locationFormView(
  form: FormState,
  alternates: number,
  choices: LocationChoices,
  target: { action: string; title: string; cancel: string; etag?: string },
  { actor, csrf }: Frame,
  general?: Html,
): string {
  const f = (name: string, label: string, extra: Partial<Parameters<typeof input>[0]> = {}) =>
    input({ name, label, form, ...extra })
  const others = Array.from({ length: alternates }, (_, i) => {
    const prefix = `shipping_addresses.${i}`
    const id = form.values[`${prefix}.id`] ?? ''
    return addressFieldset(
      prefix,
      `Other shipping address ${i + 1}`,
      form,
      html`<input type="hidden" name="${prefix}.id" value="${id}" />
        <div class="field checkbox">
          <input
            type="checkbox"
            id="${prefix}-remove"
            name="${prefix}.remove"
            value="on"
            ${form.values[`${prefix}.remove`] === 'on' ? html`checked` : ''}
          />
          <label for="${prefix}-remove">Remove this address</label>
        </div>`,
    )
  })
  const body = html`${general ?? ''}${errorSummary(form, locationLabels(alternates))}
  ${postForm(
    target.action,
    csrf,
    html`${target.etag === undefined ? '' : html`<input type="hidden" name="_etag" value="${target.etag}" />`}
      <input type="hidden" name="_alternates" value="${alternates}" />
      <fieldset>
        <legend>Location</legend>
        ${f('name', 'Name', { required: true, maxlength: 150 })} ${f('external_id', 'External ID', { maxlength: 100 })}
        ${f('phoneOne', 'Phone', { type: 'tel', required: true, maxlength: 20 })}
        ${f('fax', 'Fax', { type: 'tel', maxlength: 20 })} ${f('email', 'E-mail', { type: 'email', maxlength: 254 })}
        ${f('url', 'Website', { maxlength: 200 })}
        ${select({ name: 'currency', label: 'Currency', form, options: choices.currency, required: true })}
        ${select({ name: 'legal_entity', label: 'Legal entity', form, options: choices.legal_entity, empty: 'None' })}
        ${f('locationTimezone', 'Time zone', { maxlength: 64, hint: 'An IANA name, e.g. America/Chicago.' })}
      </fieldset>
      ${addressFieldset('primary_billing_address', 'Billing address', form)}
      ${addressFieldset('primary_shipping_address', 'Shipping address', form)} ${others}
      <p class="actions">
        <button type="submit" name="_action" value="save">Save location</button>
        <button type="submit" name="_action" value="add" class="secondary">Add another shipping address</button>
        <a href="${target.cancel}">Cancel</a>
      </p>`,
    html`novalidate`,
  )}`
  return page({ title: target.title, actor, csrf, current: 'locations' }, body)
}
