/**
 * Locations and vendors (locations, vendors and the vendor import), fed hostile strings wherever people's text goes
 * (helpers/hostile-views.ts), write them as text. console-views-basics.test.ts checks that every function a view
 * module exports has a case in one of the console-views-*.test.ts files.
 */
import { html } from '../src/console/views/html.ts'
import * as layout from '../src/console/views/layout.ts'
import * as locations from '../src/console/views/locations.ts'
import * as vendorImport from '../src/console/views/vendor-import.ts'
import * as vendors from '../src/console/views/vendors.ts'
import { form, frame, HOSTILE, hostileCases, options, pageOf } from './helpers/hostile-views.ts'

const address = {
  id: 5,
  name: HOSTILE,
  addressLineOne: HOSTILE,
  city: HOSTILE,
  postalCode: HOSTILE,
  state_province: HOSTILE,
  country: HOSTILE,
}
const location = {
  id: 1,
  name: HOSTILE,
  headquarter: true,
  currency: { name: HOSTILE, description: HOSTILE },
  primary_billing_address: address,
  primary_shipping_address: address,
  shipping_addresses: [address],
  department_count: 1,
  active: true,
  external_id: HOSTILE,
  phoneOne: HOSTILE,
  email: HOSTILE,
  url: HOSTILE,
  locationTimezone: HOSTILE,
  legal_entity: { id: 1, name: HOSTILE },
} as unknown as Parameters<typeof locations.locationView>[0]
const vendor = {
  id: 1,
  name: HOSTILE,
  type: 3,
  city: HOSTILE,
  country: HOSTILE,
  contact: HOSTILE,
  active: true,
  external_id: HOSTILE,
  email: [HOSTILE],
  phoneOne: HOSTILE,
  phoneTwo: '',
  url: HOSTILE,
  addressLineOne: HOSTILE,
  addressLineTwo: '',
  state_province: HOSTILE,
  postalCode: HOSTILE,
  comments: HOSTILE,
  dateModified: '2026-11-25T10:00:00.000Z',
  payment_term_ref: { id: 1, name: HOSTILE },
  shipping_term_ref: null,
  payment_method_ref: null,
  shipping_method_ref: null,
} as unknown as Parameters<typeof vendors.vendorView>[0]
const choices = {
  currency: options,
  payment_term_ref: options,
  shipping_term_ref: options,
  payment_method_ref: options,
  shipping_method_ref: options,
}

hostileCases({
  'locations.locationsView': () => locations.locationsView(pageOf([location]), HOSTILE, frame, HOSTILE),
  'locations.locationView': () => locations.locationView(location, frame, HOSTILE),
  'locations.locationLabels': () => html`${Object.values(locations.locationLabels(2))}`,
  'locations.locationFormView': () =>
    locations.locationFormView(
      form,
      2,
      { currency: options, legal_entity: options },
      { action: HOSTILE, title: HOSTILE, cancel: HOSTILE, etag: HOSTILE },
      frame,
      layout.notice('alert', HOSTILE),
    ),
  'vendors.vendorsView': () => vendors.vendorsView(pageOf([vendor]), HOSTILE, frame, HOSTILE),
  'vendors.vendorView': () => vendors.vendorView(vendor, HOSTILE, frame, HOSTILE),
  'vendors.vendorFormView': () =>
    vendors.vendorFormView(form, choices, { action: HOSTILE, title: HOSTILE, cancel: HOSTILE }, frame),
  'vendor-import.importView': () => vendorImport.importView(HOSTILE, frame, HOSTILE),
  'vendor-import.previewView': () =>
    vendorImport.previewView(
      [
        { line: 2, values: { name: HOSTILE, email: HOSTILE }, errors: { [HOSTILE]: [HOSTILE] } },
        { line: 3, values: { [HOSTILE]: HOSTILE }, errors: {} },
      ],
      HOSTILE,
      frame,
      HOSTILE,
    ),
  'vendor-import.previewView (ready)': () =>
    vendorImport.previewView([{ line: 2, values: { name: HOSTILE }, errors: {} }], HOSTILE, frame),
})
