/**
 * The demo tenant: enough data to try every endpoint right after `npm start`. Created in one transaction,
 * so it is either whole or absent; running it again when the tenant exists changes nothing.
 */
import type { Kysely, Transaction } from 'kysely'
import type { DB } from '../db/schema.ts'
import { seedRequests } from './demo-requests.ts'
import { ADMINISTRATOR, BUYER, REQUESTER, type StandardRole } from '../tenants/service.ts'

export const DEMO_DOMAIN = 'demo'
export const DEMO_ADMIN_EMAIL = 'admin@example.com'

type Tx = Transaction<DB>

/** The standard roles but Approver, the Administrator with the Superuser role type. */
const ROLES: StandardRole[] = [{ ...ADMINISTRATOR, type: 7 }, BUYER, REQUESTER]

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

/**
 * A tenant with the full sample data set (the demo tenant's contents) under `domain`; returns its id.
 * Users are admin@example.com, buyer@example.com and requester@example.com (e-mail is unique per tenant).
 */
export async function createSampleTenant(tx: Tx, domain: string, name: string): Promise<number> {
  const { id: tenant_id } = await tx
    .insertInto('tenants')
    .values({ domain, name })
    .returning('id')
    .executeTakeFirstOrThrow()

  const currencies = await tx
    .insertInto('currencies')
    .values([
      { tenant_id, name: 'USD', description: 'US Dollar', rate: '1.000000', base: true },
      { tenant_id, name: 'CAD', description: 'Canadian Dollar', rate: '1.350000' },
      { tenant_id, name: 'EUR', description: 'Euro', rate: '0.920000' },
    ])
    .returning(['id', 'name'])
    .execute()
  const currencyId = (name: string) => currencies.find((c) => c.name === name)!.id

  const { id: legal_entity_id } = await tx
    .insertInto('legal_entities')
    .values({ tenant_id, name: 'Demo Company Inc.' })
    .returning('id')
    .executeTakeFirstOrThrow()

  const locationIds: number[] = []
  const departmentIds: number[] = []
  for (const [index, place] of LOCATIONS.entries()) {
    const { id: location_id } = await tx
      .insertInto('locations')
      .values({
        tenant_id,
        name: place.name,
        currency_id: currencyId(place.currency),
        phone_one: `+1 312 555 01${index}0`,
        email: `${place.name.toLowerCase().replace(/\W+/g, '.')}@example.com`,
        timezone: place.tz,
        legal_entity_id,
        external_id: `LOC-${index + 1}`,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    locationIds.push(location_id)
    const street = `${100 + index * 10} Main Street`
    const address = {
      tenant_id,
      location_id,
      city: place.city,
      state_province: place.state,
      country: place.country,
      postal_code: place.postal,
    }
    await tx
      .insertInto('addresses')
      .values([
        { ...address, kind: 'billing', name: `${place.name} billing`, address_line_one: street },
        { ...address, kind: 'shipping', name: `${place.name} receiving`, address_line_one: street },
        {
          ...address,
          kind: 'alternate',
          name: `${place.name} loading dock`,
          address_line_one: `${200 + index} Dock Road`,
        },
        ...(index === 0
          ? [{ ...address, kind: 'alternate' as const, name: 'Head Office annex', address_line_one: '12 Annex Lane' }]
          : []),
      ])
      .execute()
    const departments = await tx
      .insertInto('departments')
      .values(
        ['Operations', 'Finance', 'IT'].map((name) => ({
          tenant_id,
          location_id,
          name,
          external_id: `${name.slice(0, 3).toUpperCase()}-${index + 1}`,
        })),
      )
      .returning('id')
      .execute()
    departmentIds.push(...departments.map((d) => d.id))
  }

  const permissionIds = new Map(
    (await tx.selectFrom('permissions').select(['id', 'key']).execute()).map((p) => [p.key, p.id] as const),
  )
  const roleIds = new Map<string, number>()
  for (const role of ROLES) {
    const { id } = await tx
      .insertInto('roles')
      .values({ tenant_id, name: role.name, type: role.type, tier: role.tier })
      .returning('id')
      .executeTakeFirstOrThrow()
    roleIds.set(role.name, id)
    await tx
      .insertInto('role_permissions')
      .values(role.permissions.map((key) => ({ tenant_id, role_id: id, permission_id: permissionIds.get(key)! })))
      .execute()
  }

  const people = [
    { email: DEMO_ADMIN_EMAIL, first: 'Ada', last: 'Admin', role: 'Administrator', position: 'Controller', dept: 1 },
    { email: 'buyer@example.com', first: 'Bo', last: 'Buyer', role: 'Buyer', position: 'Purchasing Agent', dept: 0 },
    {
      email: 'requester@example.com',
      first: 'Rita',
      last: 'Requester',
      role: 'Requester',
      position: 'Analyst',
      dept: 2,
    },
  ]
  const userIds: number[] = []
  for (const person of people) {
    const { id: user_id } = await tx
      .insertInto('users')
      .values({ tenant_id, email: person.email })
      .returning('id')
      .executeTakeFirstOrThrow()
    userIds.push(user_id)
    const role_id = roleIds.get(person.role)!
    await tx
      .insertInto('user_profiles')
      .values({
        tenant_id,
        user_id,
        first_name: person.first,
        last_name: person.last,
        position: person.position,
        phone: '+1 312 555 0199',
        role_id,
        location_id: locationIds[0]!,
        department_id: departmentIds[person.dept]!,
        all_locations: person.role === 'Administrator',
      })
      .execute()
    await tx.insertInto('role_grants').values({ tenant_id, user_id, location_id: null, role_id }).execute()
    await tx
      .insertInto('user_locations')
      .values(locationIds.map((location_id) => ({ tenant_id, user_id, location_id, all_departments: true })))
      .execute()
    await tx.insertInto('user_legal_entities').values({ tenant_id, user_id, legal_entity_id }).execute()
  }
  const [adminId, buyerId] = userIds as [number, number, number]
  // Per-location roles: the buyer also approves at the East Warehouse.
  await tx
    .insertInto('role_grants')
    .values({ tenant_id, user_id: buyerId, location_id: locationIds[1]!, role_id: roleIds.get('Requester')! })
    .execute()

  const inTwoWeeks = new Date(Date.now() + 14 * 86400_000).toISOString().slice(0, 10)
  await tx
    .insertInto('delegations')
    .values({ tenant_id, user_id: buyerId, delegatee_id: adminId, expected_return_date: inTwoWeeks })
    .execute()

  const lookup = async (
    table: 'payment_terms' | 'shipping_terms' | 'payment_methods' | 'shipping_methods',
    name: string,
  ) => (await tx.insertInto(table).values({ tenant_id, name }).returning('id').executeTakeFirstOrThrow()).id
  const payment_term_id = await lookup('payment_terms', 'Net 30')
  const shipping_term_id = await lookup('shipping_terms', 'FOB Destination')
  const payment_method_id = await lookup('payment_methods', 'Cheque')
  const shipping_method_id = await lookup('shipping_methods', 'Ground')
  const vendors = await tx
    .insertInto('vendors')
    .values(
      VENDOR_NAMES.map((name, i) => ({
        tenant_id,
        name,
        active: i % 9 !== 8,
        type: i % 4 === 3 ? 4 : 3,
        address_line_one: `${10 + i} Commerce Way`,
        city: 'Springfield',
        state_province: 'IL',
        country: 'United States',
        postal_code: `627${String(i).padStart(2, '0')}`,
        phone_one: `+1 217 555 ${String(1000 + i)}`,
        emails: [`orders@${name.toLowerCase().replace(/[^a-z]+/g, '')}.example.com`],
        contact: 'Sales desk',
        external_id: `V-${1000 + i}`,
        currency_id: currencyId(i % 5 === 4 ? 'CAD' : 'USD'),
        payment_term_id,
        shipping_term_id,
        payment_method_id,
        shipping_method_id,
      })),
    )
    .returning('id')
    .execute()
  const profiles = await tx
    .selectFrom('user_profiles as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['p.id as profileId', 'u.id as userId', 'u.email'])
    .where('p.tenant_id', '=', tenant_id)
    .execute()
  const person = (email: string) => profiles.find((x) => x.email === email)!
  await seedRequests(tx, {
    tenantId: tenant_id,
    domain,
    locations: locationIds,
    vendors: vendors.map((v) => v.id),
    admin: person(DEMO_ADMIN_EMAIL),
    buyer: person('buyer@example.com'),
    requester: person('requester@example.com'),
  })
  return tenant_id
}
