/** The locations and vendors lists, with search and paging. */
import type { Actor } from '../../access/actor.ts'
import type { Page } from '../../core/list-query.ts'
import type { LocationView } from '../../locations/schema.ts'
import type { Vendor } from '../../vendors/schema.ts'
import { html } from './html.ts'
import { page } from './layout.ts'
import { pager, searchForm, table } from './lists.ts'

interface Frame {
  actor: Actor
  csrf: string
}

export function locationsView(result: Page<LocationView>, search: string | undefined, { actor, csrf }: Frame): string {
  const body = html`${searchForm('/console/locations', 'Search locations by name', search)}
  ${table(
    ['Name', 'Currency', 'City', 'Departments', 'State'],
    result.rows.map(
      (l) =>
        html`<tr>
          <td>${l.name}${l.headquarter ? html` <span class="muted">(headquarters)</span>` : ''}</td>
          <td>${l.currency.name}</td>
          <td>${l.primary_shipping_address.city}</td>
          <td>${l.department_count}</td>
          <td>${l.active ? 'active' : 'inactive'}</td>
        </tr>`,
    ),
  )}
  ${pager('/console/locations', result, search)}`
  return page({ title: 'Locations', actor, csrf, current: 'locations' }, body)
}

export function vendorsView(result: Page<Vendor>, search: string | undefined, { actor, csrf }: Frame): string {
  const body = html`${searchForm('/console/vendors', 'Search vendors by name', search)}
  ${table(
    ['Name', 'City', 'Country', 'Contact', 'State'],
    result.rows.map(
      (v) =>
        html`<tr>
          <td>${v.name}</td>
          <td>${v.city || '—'}</td>
          <td>${v.country || '—'}</td>
          <td>${v.contact || '—'}</td>
          <td>${v.active ? 'active' : 'inactive'}</td>
        </tr>`,
    ),
  )}
  ${pager('/console/vendors', result, search)}`
  return page({ title: 'Vendors', actor, csrf, current: 'vendors' }, body)
}
