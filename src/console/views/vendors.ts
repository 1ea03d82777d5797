/** Vendors: the list (search, paging, export), one vendor, and the form that creates or edits one. */
import type { Actor } from '../../access/actor.ts'
import type { Page } from '../../core/list-query.ts'
import type { Vendor } from '../../vendors/schema.ts'
import { addressText, when } from './format.ts'
import { errorSummary, input, select, textarea, type FormState, type Option } from './forms.ts'
import { html, safeHref, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, pager, searchForm, table } from './lists.ts'

export const VENDOR_TYPES: readonly Option[] = [
  { value: '3', label: 'Preferred' },
  { value: '4', label: 'Regular' },
  { value: '1', label: 'Other' },
  { value: '2', label: 'Marketplace (punch-out)' },
  { value: '5', label: 'Employee' },
  { value: '6', label: 'Card provider' },
  { value: '7', label: 'Checkout' },
]
const typeName = (type: number) => VENDOR_TYPES.find((t) => t.value === String(type))?.label ?? String(type)

/** Each form field's name (the API's) and what people call it. */
export const VENDOR_LABELS: Readonly<Record<string, string>> = {
  name: 'Name',
  external_id: 'External ID',
  type: 'Type',
  contact: 'Contact',
  email: 'E-mail addresses',
  phoneOne: 'Phone',
  phoneTwo: 'Second phone',
  fax: 'Fax',
  url: 'Website',
  addressLineOne: 'Address line 1',
  addressLineTwo: 'Address line 2',
  city: 'City',
  state_province: 'State or province',
  postalCode: 'Postal code',
  country: 'Country',
  currency: 'Currency',
  payment_term_ref: 'Payment terms',
  shipping_term_ref: 'Shipping terms',
  payment_method_ref: 'Payment method',
  shipping_method_ref: 'Shipping method',
  comments: 'Comments',
}

/** The choices a vendor form offers: the tenant's currencies and its four look-up lists. */
export interface VendorChoices {
  currency: readonly Option[]
  payment_term_ref: readonly Option[]
  shipping_term_ref: readonly Option[]
  payment_method_ref: readonly Option[]
  shipping_method_ref: readonly Option[]
}

const canWrite = (actor: Actor) => actor.permissions.has('superuser') || actor.permissions.has('nav_purchase')

export function vendorsView(
  result: Page<Vendor>,
  search: string | undefined,
  { actor, csrf }: Frame,
  flash?: string,
): string {
  const exportQuery = new URLSearchParams(search ? { search } : {})
  const actions = html`<p class="actions">
    ${
      canWrite(actor)
        ? html`<a class="button" href="/console/vendors/new">New vendor</a>
            <a class="button secondary" href="/console/vendors/import">Import from CSV</a>`
        : ''
    }
    <a class="button secondary" href="/console/vendors/export?${exportQuery.toString()}"
      >Export all matching vendors (CSV)</a
    >
  </p>`
  const body = html`${flash === undefined ? '' : notice('status', flash)} ${actions}
  ${searchForm('/console/vendors', 'Search vendors by name', search)}
  ${
    result.count === 0
      ? emptyState(
          search === undefined
            ? canWrite(actor)
              ? 'No vendors yet. Create one with “New vendor”, or import a list from a CSV file.'
              : 'No vendors yet. Someone with the Purchase permission can add them.'
            : `No vendor matches “${search}”. Try part of the name.`,
        )
      : html`${table(
          ['Name', 'Type', 'City', 'Country', 'Contact', 'State'],
          result.rows.map(
            (v) =>
              html`<tr data-href="/console/vendors/${v.id}">
                <td><a href="/console/vendors/${v.id}">${v.name}</a></td>
                <td>${typeName(v.type)}</td>
                <td>${v.city || '—'}</td>
                <td>${v.country || '—'}</td>
                <td>${v.contact || '—'}</td>
                <td>${v.active ? 'Active' : 'Inactive'}</td>
              </tr>`,
          ),
        )}
        ${pager('/console/vendors', result, search)}`
  }`
  return page({ title: 'Vendors', actor, csrf, current: 'vendors' }, body)
}

const refName = (ref: { name: string } | null) => ref?.name ?? '—'

export function vendorView(
  vendor: Vendor,
  currency: string,
  { actor, csrf }: Frame,
  flash?: string,
  /** The boxes at the end (views/history.ts): its orders, bills and spend; its history. */
  boxes: readonly Html[] = [],
): string {
  const address = addressText(vendor)
  const body = html`${flash === undefined ? '' : notice('status', flash)}
    <p class="actions">
      ${
        canWrite(actor)
          ? html`<a class="button" href="/console/vendors/${vendor.id}/edit">Edit</a> ${postForm(
                `/console/vendors/${vendor.id}/${vendor.active ? 'deactivate' : 'activate'}`,
                csrf,
                html`<button type="submit" class="secondary">${vendor.active ? 'Deactivate' : 'Activate'}</button>`,
                html`class="inline"`,
              )}`
          : ''
      }
      <a href="/console/vendors">All vendors</a>
    </p>
    <section aria-labelledby="details">
      <h2 id="details">Details</h2>
      <dl>
        <dt>State</dt>
        <dd>${vendor.active ? 'Active' : 'Inactive'}</dd>
        <dt>Type</dt>
        <dd>${typeName(vendor.type)}</dd>
        <dt>External ID</dt>
        <dd>${vendor.external_id || '—'}</dd>
        <dt>Contact</dt>
        <dd>${vendor.contact || '—'}</dd>
        <dt>E-mail</dt>
        <dd>
          ${vendor.email.length === 0 ? '—' : vendor.email.map((e, i) => html`${i > 0 ? ', ' : ''}<a href="${safeHref(`mailto:${e}`)}">${e}</a>`)}
        </dd>
        <dt>Phone</dt>
        <dd>${[vendor.phoneOne, vendor.phoneTwo].filter(Boolean).join(', ') || '—'}</dd>
        <dt>Website</dt>
        <dd>
          ${vendor.url === '' ? '—' : html`<a href="${safeHref(vendor.url)}" rel="noopener noreferrer">${vendor.url}</a>`}
        </dd>
        <dt>Address</dt>
        <dd>${address || '—'}</dd>
        <dt>Currency</dt>
        <dd>${currency}</dd>
        <dt>Payment terms</dt>
        <dd>${refName(vendor.payment_term_ref)}</dd>
        <dt>Shipping terms</dt>
        <dd>${refName(vendor.shipping_term_ref)}</dd>
        <dt>Payment method</dt>
        <dd>${refName(vendor.payment_method_ref)}</dd>
        <dt>Shipping method</dt>
        <dd>${refName(vendor.shipping_method_ref)}</dd>
        <dt>Comments</dt>
        <dd>${vendor.comments || '—'}</dd>
        <dt>Last changed</dt>
        <dd>${when(vendor.dateModified)}</dd>
      </dl>
    </section>
    ${boxes}`
  return page({ title: vendor.name, actor, csrf, current: 'vendors' }, body)
}

/** The create or edit form; `action` is where it posts, `vendor` the one being edited (none for a new one). */
export function vendorFormView(
  form: FormState,
  choices: VendorChoices,
  target: { action: string; title: string; cancel: string },
  { actor, csrf }: Frame,
): string {
  const f = (name: string, extra: Partial<Parameters<typeof input>[0]> = {}) =>
    input({ name, label: VENDOR_LABELS[name]!, form, ...extra })
  const pick = (name: keyof VendorChoices) =>
    select({ name, label: VENDOR_LABELS[name]!, form, options: choices[name], empty: 'None' })
  const body = html`${errorSummary(form, VENDOR_LABELS)}
  ${postForm(
    target.action,
    csrf,
    html`<fieldset>
        <legend>Vendor</legend>
        ${f('name', { required: true, maxlength: 150 })}
        ${select({ name: 'type', label: 'Type', form, options: VENDOR_TYPES, required: true })}
        ${f('external_id', { maxlength: 100, hint: 'Your own reference, e.g. the vendor number in your ERP.' })}
        ${f('contact', { maxlength: 50 })} ${f('email', { hint: 'Separate several addresses with commas.' })}
        ${f('phoneOne', { type: 'tel', maxlength: 20 })} ${f('phoneTwo', { type: 'tel', maxlength: 20 })}
        ${f('fax', { type: 'tel', maxlength: 20 })}
        ${f('url', { maxlength: 200, hint: 'For example https://example.com' })}
      </fieldset>
      <fieldset>
        <legend>Address</legend>
        ${f('addressLineOne', { maxlength: 300 })} ${f('addressLineTwo', { maxlength: 300 })}
        ${f('city', { maxlength: 50 })} ${f('state_province', { maxlength: 40 })} ${f('postalCode', { maxlength: 20 })}
        ${f('country', { maxlength: 80 })}
      </fieldset>
      <fieldset>
        <legend>Terms</legend>
        ${pick('currency')} ${pick('payment_term_ref')} ${pick('shipping_term_ref')} ${pick('payment_method_ref')}
        ${pick('shipping_method_ref')}
      </fieldset>
      ${textarea({ name: 'comments', label: 'Comments', form })}
      <p class="actions"><button type="submit">Save vendor</button> <a href="${target.cancel}">Cancel</a></p>`,
    html`novalidate`,
  )}`
  return page({ title: target.title, actor, csrf, current: 'vendors' }, body)
}
