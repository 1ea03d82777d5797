/**
 * Set-up pages for departments, currencies and the four vendor look-ups, described for pages/setup.ts:
 * through the same services and schemas as the API's writes.
 */
import { listLocations } from '../../locations/service.ts'
import { CurrencyInput, DepartmentInput, VendorLookupInput } from '../../lookups/schema.ts'
import { listCurrencies, listDepartments, listVendorLookups } from '../../lookups/service.ts'
import * as write from '../../lookups/write.service.ts'
import { activeText } from '../views/setup.ts'
import { allRows } from './forms.ts'
import { activeField, isOn, numberOr, optional, text, str, type Kind } from './setup-kind.ts'

const VENDOR_KINDS = {
  'payment-terms': ['payment_terms', 'Payment terms', 'payment term', 'When vendors are paid, e.g. "Net 30".'],
  'shipping-terms': ['shipping_terms', 'Shipping terms', 'shipping term', 'Who pays for delivery, e.g. "FOB".'],
  'payment-methods': ['payment_methods', 'Payment methods', 'payment method', 'How vendors are paid, e.g. "ACH".'],
  'shipping-methods': ['shipping_methods', 'Shipping methods', 'shipping method', 'How goods arrive, e.g. "Ground".'],
} as const

function vendorKind(path: keyof typeof VENDOR_KINDS): Kind {
  const [table, title, singular, intro] = VENDOR_KINDS[path]
  return {
    title,
    singular,
    intro: `${intro} Vendors refer to them; the vendor import takes their names.`,
    headings: ['Description', 'Status'],
    cells: (r) => [str(r.description), activeText(r.active === true)],
    fields: async () => [
      { kind: 'text', name: 'name', label: 'Name', required: true, maxlength: 100 },
      { kind: 'textarea', name: 'description', label: 'Description' },
      activeField,
    ],
    schema: VendorLookupInput,
    body: (v) => ({ name: text(v.name), ...optional('description', v.description), active: isOn(v) }),
    values: (r) => ({ name: r.name, description: str(r.description), active: r.active === true ? 'on' : '' }),
    rows: async (db, actor) => allRows((q) => listVendorLookups(db, table, actor, q)),
    create: (db, actor, body) => write.createVendorLookup(db, table, actor, body),
    replace: (db, actor, id, body) => write.replaceVendorLookup(db, table, actor, id, body),
  }
}

export const LOOKUP_KINDS: Record<string, Kind> = {
  departments: {
    title: 'Departments',
    singular: 'department',
    intro: 'Each location’s departments: people belong to one, and requests are charged to one.',
    headings: ['Location', 'External id', 'Status'],
    cells: (r) => [(r.branch as { name: string }).name, str(r.external_id), activeText(r.active === true)],
    fields: async (db, actor) => [
      { kind: 'text', name: 'name', label: 'Name', required: true, maxlength: 150 },
      {
        kind: 'select',
        name: 'location',
        label: 'Location',
        required: true,
        options: (await allRows((q) => listLocations(db, actor, q))).map((l) => ({
          value: String(l.id),
          label: l.name,
        })),
      },
      {
        kind: 'text',
        name: 'external_id',
        label: 'External id',
        hint: 'Your accounting system’s code.',
        maxlength: 100,
      },
      activeField,
    ],
    schema: DepartmentInput,
    body: (v) => ({
      name: text(v.name),
      location: numberOr(v.location),
      ...optional('external_id', v.external_id),
      active: isOn(v),
    }),
    values: (r) => ({
      name: r.name,
      location: String((r.branch as { id: number }).id),
      external_id: str(r.external_id),
      active: r.active === true ? 'on' : '',
    }),
    rows: async (db, actor) => allRows((q) => listDepartments(db, actor, q)),
    create: (db, actor, body) => write.createDepartment(db, actor, body),
    replace: (db, actor, id, body) => write.replaceDepartment(db, actor, id, body),
  },
  currencies: {
    title: 'Currencies',
    singular: 'currency',
    intro: 'The currencies locations and vendors use, with their rate to the base currency (whose rate stays 1).',
    headings: ['Description', 'Rate', 'Base', 'Status'],
    cells: (r) => [
      str(r.description),
      str(r.rate),
      r.base === true ? 'Base currency' : '',
      activeText(r.active === true),
    ],
    fields: async (db, actor) => [
      {
        kind: 'text',
        name: 'name',
        label: 'Code',
        hint: 'ISO 4217, three capitals: EUR, GBP, JPY.',
        required: true,
        maxlength: 3,
      },
      { kind: 'text', name: 'description', label: 'Description', maxlength: 100 },
      {
        kind: 'text',
        name: 'rate',
        label: 'Rate',
        hint: rateHint(await allRows((q) => listCurrencies(db, actor, q))),
        required: true,
      },
      activeField,
    ],
    schema: CurrencyInput,
    body: (v) => ({
      name: text(v.name),
      ...optional('description', v.description),
      rate: text(v.rate),
      active: isOn(v),
    }),
    values: (r) => ({
      name: r.name,
      description: str(r.description),
      rate: str(r.rate),
      active: r.active === true ? 'on' : '',
    }),
    rows: async (db, actor) => allRows((q) => listCurrencies(db, actor, q)),
    create: (db, actor, body) => write.createCurrency(db, actor, body),
    replace: (db, actor, id, body) => write.replaceCurrency(db, actor, id, body),
  },
  ...Object.fromEntries(Object.keys(VENDOR_KINDS).map((k) => [k, vendorKind(k as keyof typeof VENDOR_KINDS)])),
}

/**
 * The rate field's hint (DECISIONS, "Exchange rates": units of the currency per one unit of the base currency),
 * with the tenant's own example: `1 USD = 0.92 EUR: enter 0.92 for EUR`.
 */
function rateHint(rows: readonly Record<string, unknown>[]): string {
  const base = rows.find((r) => r.base === true)
  const baseName = typeof base?.name === 'string' ? base.name : 'base currency'
  const other = rows.find((r) => r.base !== true && typeof r.name === 'string' && typeof r.rate === 'string')
  const example =
    other === undefined
      ? ''
      : ` For example, 1 ${baseName} = ${Number(other.rate)} ${other.name as string}: enter ${Number(other.rate)} for ${other.name as string}.`
  return `Units of this currency per one ${baseName}.${example}`
}
