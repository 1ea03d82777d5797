/**
 * The demo tenant: enough data to try every endpoint right after `npm start`. Made as an operator and an
 * administrator would make it — `tenants create` (the standard roles, the headquarters, the first
 * administrator), then the locations, users, grants, delegation, vendors, rules and requests through the
 * same services the API uses, so it is checked by the same rules and records the same audit entries and
 * events. Only what no service writes yet (extra currencies, departments, the vendor look-ups, the legal
 * entity's name, the administrator's access to the later locations) is written directly. Created in one transaction, so it is either whole or absent; running
 * it again when the tenant exists changes nothing.
 */
import { registerAllDocuments } from '../documents.ts'
import type { Kysely, Transaction } from 'kysely'
import { operatorActor, type Actor } from '../access/actor.ts'
import type { DB } from '../db/schema.ts'
import { LookupCache } from '../lookups/cache.ts'
import type { LocationInput } from '../locations/schema.ts'
import { createLocation, replaceLocation } from '../locations/service.ts'
import { createRole } from '../roles/service.ts'
import { createTenant } from '../tenants/service.ts'
import { setDelegation } from '../users/delegation.service.ts'
import { replaceLocationRoles } from '../users/grants.service.ts'
import { createBatch, updateUser } from '../users/service.ts'
import { createVendors } from '../vendors/service.ts'
import { seedRequests, seedRules } from './demo-requests.ts'
import { seedExpenses } from './demo-expenses.ts'
import { seedPayments } from './demo-payments.ts'
import { seedBudgets } from './demo-budgets.ts'

export const DEMO_DOMAIN = 'demo'
export const DEMO_ADMIN_EMAIL = 'admin@example.com'
export const DEMO_MANAGER_EMAIL = 'manager@example.com'
export const DEMO_BUYER_EMAIL = 'buyer@example.com'
/** The buyer is away for two weeks from the day of seeding (demo-template.ts dates it again at a later first start). */
export const buyerAwayUntil = (): string => new Date(Date.now() + 14 * 86400_000).toISOString().slice(0, 10)

type Tx = Transaction<DB>

const LOCATIONS = [
  {
    name: 'Head Office',
    currency: 'USD',
    city: 'Chicago',
    state: 'IL',
    country: 'United States',
    postal: '60601',
    tz: 'America/Chicago',
  },
  {
    name: 'East Warehouse',
    currency: 'USD',
    city: 'Newark',
    state: 'NJ',
    country: 'United States',
    postal: '07102',
    tz: 'America/New_York',
  },
  {
    name: 'Berlin Office',
    currency: 'EUR',
    city: 'Berlin',
    state: '',
    country: 'Germany',
    postal: '10115',
    tz: 'Europe/Berlin',
  },
]

const VENDOR_NAMES = [
  'Acme Office Supply',
  'Blue Ridge Paper',
  'Cascade Electronics',
  'Delta Freight',
  'Evergreen Janitorial',
  'Falcon IT Services',
  'Granite Furniture',
  'Harbor Logistics',
  'Ironwood Tools',
  'Juniper Catering',
  'Keystone Printing',
  'Lakeside Water Co.',
  'Maple Security',
  'Northwind Traders',
  'Orchard Software',
  'Pioneer Safety Gear',
  'Quarry Building Materials',
  'Redwood Consulting',
  'Summit Telecom',
  'Timberline Uniforms',
  'Union Courier',
  'Vantage Hardware',
  'Willow Health Supplies',
  'Xeno Lab Equipment',
  'Yellowstone Energy',
  'Zephyr Cleaning',
  'Atlas Travel',
  'Beacon Marketing',
]

/** Creates the demo tenant unless it exists. Returns whether it created it. */
export async function seedDemo(db: Kysely<DB>): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const existing = await tx.selectFrom('tenants').select('id').where('domain', '=', DEMO_DOMAIN).executeTakeFirst()
    if (existing !== undefined) return false
    await createSampleTenant(tx, DEMO_DOMAIN, 'Demo Company')
    return true
  })
}

const slug = (name: string) => name.toLowerCase().replace(/\W+/g, '.')

function locationInput(place: (typeof LOCATIONS)[number], index: number, legalEntity: number): LocationInput {
  const street = `${100 + index * 10} Main Street`
  const address = (name: string, addressLineOne = street) => ({
    name,
    addressLineOne,
    city: place.city,
    postalCode: place.postal,
    state_province: place.state,
    country: place.country,
  })
  return {
    name: place.name,
    currency: place.currency,
    phoneOne: `+1 312 555 01${index}0`,
    email: `${slug(place.name)}@example.com`,
    locationTimezone: place.tz,
    legal_entity: legalEntity,
    external_id: `LOC-${index + 1}`,
    primary_billing_address: address(`${place.name} billing`),
    primary_shipping_address: address(`${place.name} receiving`),
    shipping_addresses: [
      address(`${place.name} loading dock`, `${200 + index} Dock Road`),
      ...(index === 0 ? [address('Head Office annex', '12 Annex Lane')] : []),
    ],
  }
}

/** Reference data that no service writes yet: named as a data import would name it. */
async function referenceData(tx: Tx, tenant_id: number) {
  await tx
    .updateTable('currencies')
    .set({ description: 'US Dollar' })
    .where('tenant_id', '=', tenant_id)
    .where('name', '=', 'USD')
    .execute()
  await tx
    .insertInto('currencies')
    .values([
      { tenant_id, name: 'CAD', description: 'Canadian Dollar', rate: '1.350000' },
      { tenant_id, name: 'EUR', description: 'Euro', rate: '0.920000' },
    ])
    .execute()
  const { id: legalEntity } = await tx
    .updateTable('legal_entities')
    .set({ name: 'Demo Company Inc.' })
    .where('tenant_id', '=', tenant_id)
    .returning('id')
    .executeTakeFirstOrThrow()
  const lookup = async (
    table: 'payment_terms' | 'shipping_terms' | 'payment_methods' | 'shipping_methods',
    name: string,
  ) => (await tx.insertInto(table).values({ tenant_id, name }).returning('id').executeTakeFirstOrThrow()).id
  return {
    legalEntity,
    payment_term_ref: await lookup('payment_terms', 'Net 30'),
    shipping_term_ref: await lookup('shipping_terms', 'FOB Destination'),
    payment_method_ref: await lookup('payment_methods', 'Cheque'),
    shipping_method_ref: await lookup('shipping_methods', 'Ground'),
  }
}

const DEPARTMENTS = ['Operations', 'Finance', 'IT']

/**
 * The departments of the location at `index` (no service writes departments yet); the headquarters'
 * first one is the department `tenants create` made, renamed. Returns their ids in DEPARTMENTS order.
 */
async function departments(tx: Tx, tenant_id: number, location_id: number, index: number): Promise<number[]> {
  const externalId = (name: string) => `${name.slice(0, 3).toUpperCase()}-${index + 1}`
  const existing = await tx
    .updateTable('departments')
    .set({ name: DEPARTMENTS[0]!, external_id: externalId(DEPARTMENTS[0]!) })
    .where('tenant_id', '=', tenant_id)
    .where('location_id', '=', location_id)
    .returning('id')
    .execute()
  const added = await tx
    .insertInto('departments')
    .values(
      DEPARTMENTS.slice(existing.length).map((name) => ({
        tenant_id,
        location_id,
        name,
        external_id: externalId(name),
      })),
    )
    .returning('id')
    .execute()
  return [...existing, ...added].map((d) => d.id)
}

/** The tenant's role ids by name (the standard roles `tenants create` made). */
async function roleIds(tx: Tx, tenant_id: number) {
  const rows = await tx.selectFrom('roles').select(['id', 'name']).where('tenant_id', '=', tenant_id).execute()
  const id = (name: string) => rows.find((r) => r.name === name)!.id
  return {
    Administrator: id('Administrator'),
    Buyer: id('Buyer'),
    Requester: id('Requester'),
    Approver: id('Approver'),
  }
}

async function createLocations(tx: Tx, operator: Actor, legalEntity: number) {
  const [headquarters] = await tx
    .selectFrom('locations')
    .select('id')
    .where('tenant_id', '=', operator.tenantId)
    .execute()
  const locations: number[] = []
  const departmentIds: number[] = []
  for (const [index, place] of LOCATIONS.entries()) {
    const input = locationInput(place, index, legalEntity)
    const id =
      index === 0
        ? (await replaceLocation(tx, operator, headquarters!.id, input, undefined)).view.id
        : (await createLocation(tx, operator, input)).view.id
    locations.push(id)
    departmentIds.push(...(await departments(tx, operator.tenantId, id, index)))
  }
  return { locations, departments: departmentIds }
}

export interface SampleOptions {
  /**
   * Also the demo's requests, orders and bills (two thirds of the seeding's time). The demo tenant has them;
   * the tests' tenants leave them out unless a test counts on them.
   */
  documents?: boolean
}

/**
 * A tenant with the sample data set (the demo tenant's contents) under `domain`; returns its id.
 * Users are admin@, buyer@, requester@ and manager@example.com (e-mail is unique per tenant).
 */
export async function createSampleTenant(
  tx: Tx,
  domain: string,
  name: string,
  { documents = true }: SampleOptions = {},
): Promise<number> {
  registerAllDocuments() // the sample's documents go through approvals, and the app may not be built yet
  const { tenantId, adminUserId } = await createTenant(tx, {
    domain,
    name,
    adminEmail: DEMO_ADMIN_EMAIL,
    adminFirstName: 'Ada',
    adminLastName: 'Admin',
    currency: 'USD',
  })
  const operator = operatorActor({ id: tenantId, domain })
  const refs = await referenceData(tx, tenantId)
  const { locations, departments: departmentIds } = await createLocations(tx, operator, refs.legalEntity)
  const roles = await roleIds(tx, tenantId)
  const [headOffice, east] = locations as [number, number, number]

  const { id: adminProfileId } = await tx
    .selectFrom('user_profiles')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', adminUserId)
    .executeTakeFirstOrThrow()
  // The administrator's access to the locations made after it (no service changes a user's locations yet).
  await tx
    .insertInto('user_locations')
    .values(
      locations
        .slice(1)
        .map((location_id) => ({ tenant_id: tenantId, user_id: adminUserId, location_id, all_departments: true })),
    )
    .execute()
  const contact = { phone: '+1 312 555 0199', legal_entities: [refs.legalEntity] }
  await updateUser(tx, operator, adminProfileId, {
    email: DEMO_ADMIN_EMAIL,
    firstName: 'Ada',
    lastName: 'Admin',
    position: 'Controller',
    role_id: roles.Administrator,
    location: headOffice,
    department: departmentIds[1]!,
    ...contact,
  })
  const [buyer, requester, manager] = await createBatch(
    tx,
    operator,
    [
      {
        email: 'buyer@example.com',
        first_name: 'Bo',
        last_name: 'Buyer',
        role_id: roles.Buyer,
        position: 'Purchasing Agent',
        dept: 0,
      },
      {
        email: 'requester@example.com',
        first_name: 'Rita',
        last_name: 'Requester',
        role_id: roles.Requester,
        position: 'Analyst',
        dept: 2,
      },
      // The Head Office's second approver: the administrator's own requests go to her (nobody approves their own).
      {
        email: DEMO_MANAGER_EMAIL,
        first_name: 'Mia',
        last_name: 'Manager',
        role_id: roles.Approver,
        position: 'Office Manager',
        dept: 1,
        only: [headOffice],
      },
    ].map(({ dept, only, ...person }) => ({
      ...person,
      ...contact,
      home_location: headOffice,
      home_department: departmentIds[dept]!,
      locations: only ?? locations,
    })),
    '',
  )
  // Approvers are granted at some locations only: the buyer approves at the East Warehouse.
  await replaceLocationRoles(tx, operator, buyer!.id, [{ location: east, role: roles.Approver }])
  // Rita enters the vendors' bills at the Head Office.
  const payables = await createRole(tx, operator, {
    name: 'Accounts Payable',
    type: 8,
    permissions: ['accounts_payable'],
  })
  await replaceLocationRoles(tx, operator, requester!.id, [{ location: headOffice, role: payables.id }])
  // The buyer is away for two weeks; the admin decides the buyer's approvals meanwhile.
  await setDelegation(tx, operator, buyer!.id, { delegatee: adminProfileId, expected_return_date: buyerAwayUntil() })

  const lookups = new LookupCache()
  const [usd, cad] = [await currencyId(tx, tenantId, 'USD'), await currencyId(tx, tenantId, 'CAD')]
  // One import of the 30 vendors, as the console's CSV import makes them.
  const made = await createVendors(
    tx,
    lookups,
    operator,
    VENDOR_NAMES.map((vendorName, i) => ({
      name: vendorName,
      active: i % 9 !== 8,
      type: i % 4 === 3 ? 4 : 3,
      addressLineOne: `${10 + i} Commerce Way`,
      city: 'Springfield',
      state_province: 'IL',
      country: 'United States',
      postalCode: `627${String(i).padStart(2, '0')}`,
      phoneOne: `+1 217 555 ${String(1000 + i)}`,
      email: [`orders@${vendorName.toLowerCase().replace(/[^a-z]+/g, '')}.example.com`],
      contact: 'Sales desk',
      external_id: `V-${1000 + i}`,
      currency: i % 5 === 4 ? cad : usd,
      payment_term_ref: refs.payment_term_ref,
      shipping_term_ref: refs.shipping_term_ref,
      payment_method_ref: refs.payment_method_ref,
      shipping_method_ref: refs.shipping_method_ref,
    })),
  )
  const vendors = made.map((vendor) => vendor.id)
  const people = {
    tenantId,
    domain,
    locations,
    vendors,
    admin: { userId: adminUserId, profileId: adminProfileId, email: DEMO_ADMIN_EMAIL },
    buyer: { userId: buyer!.user, profileId: buyer!.id, email: buyer!.email },
    requester: { userId: requester!.user, profileId: requester!.id, email: requester!.email },
    manager: { userId: manager!.user, profileId: manager!.id, email: manager!.email },
  }
  await seedRules(tx, people)
  if (documents) await seedRequests(tx, people)
  if (documents) await seedExpenses(tx, people)
  if (documents) await seedPayments(tx, people)
  if (documents) await seedBudgets(tx, people)
  return tenantId
}

const currencyId = async (tx: Tx, tenant_id: number, name: string) =>
  (
    await tx
      .selectFrom('currencies')
      .select('id')
      .where('tenant_id', '=', tenant_id)
      .where('name', '=', name)
      .executeTakeFirstOrThrow()
  ).id
