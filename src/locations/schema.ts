/**
 * Location shapes. The response (LocationView) embeds the currency and legal entity as objects; the request
 * names them by currency name and legal-entity id, but also accepts the response's object forms and ignores
 * the read-only fields, so that a body read with GET can be PUT back unchanged.
 */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, Name, named } from '../core/schema.ts'
import { Currency, LegalEntitySummary } from '../lookups/schema.ts'

const Text = (maxLength: number, minLength = 0) => Type.String({ minLength, maxLength })

export const Address = named(
  'Address',
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    addressLineOne: Type.String(),
    city: Type.String(),
    postalCode: Type.String(),
    state_province: Type.String(),
    country: Type.String(),
  }),
)

const addressFields = {
  name: Name(150),
  addressLineOne: Text(300, 1),
  city: Text(50, 1),
  postalCode: Text(20, 1),
  state_province: Type.Optional(Text(40)),
  country: Text(80, 1),
}

/** A primary address in a request. An `id` (as GET returns it) is accepted and ignored: primaries are updated in place. */
export const AddressInput = named(
  'AddressInput',
  Type.Object({ id: Type.Optional(Type.Integer()), ...addressFields }, { additionalProperties: false }),
)
/** An alternate shipping address in a request: with `id` it updates that address of this location, without it creates one. */
export const ShippingAddressInput = named(
  'ShippingAddressInput',
  Type.Object({ id: Type.Optional(Id), ...addressFields }, { additionalProperties: false }),
)

export const LocationView = named(
  'Location',
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    url: Type.String(),
    logo: Type.String(),
    currency: Currency,
    phoneOne: Type.String(),
    fax: Type.String(),
    email: Type.String(),
    primary_billing_address: Address,
    primary_shipping_address: Address,
    shipping_addresses: Type.Array(Address, { description: 'Active alternate shipping addresses.' }),
    language: Type.Integer(),
    locationTimezone: Type.String({ description: 'IANA time-zone name, e.g. America/Chicago; empty when unset.' }),
    headquarter: Type.Boolean({ description: "Read-only: the tenant's first location." }),
    department_count: Type.Integer({ description: 'Read-only: active departments at this location.' }),
    active: Type.Boolean(),
    external_id: Type.String(),
    legal_entity: Type.Union([LegalEntitySummary, Type.Null()]),
  }),
)
export type LocationView = Static<typeof LocationView>

export const MAX_SHIPPING_ADDRESSES = 200

export const LocationInput = named(
  'LocationInput',
  Type.Object(
    {
      name: Name(150),
      url: Type.Optional(Text(200)),
      logo: Type.Optional(Text(2000)),
      currency: Type.Union([Text(10, 1), Type.Object({ name: Text(10, 1) })], {
        description: 'Currency name, e.g. "USD" (the object GET returns is accepted too).',
      }),
      phoneOne: Text(20, 1),
      fax: Type.Optional(Text(20)),
      email: Type.Optional(Type.Union([Type.Literal(''), Type.String({ format: 'email', maxLength: 254 })])),
      primary_billing_address: AddressInput,
      primary_shipping_address: AddressInput,
      shipping_addresses: Type.Optional(Type.Array(ShippingAddressInput, { maxItems: MAX_SHIPPING_ADDRESSES })),
      language: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 1, description: '1 = English (the only language so far).' }),
      ),
      locationTimezone: Type.Optional(Text(64)),
      active: Type.Optional(Type.Boolean()),
      external_id: Type.Optional(Text(100)),
      legal_entity: Type.Optional(
        Type.Union([Id, Type.Object({ id: Id }), Type.Null()], {
          description: 'Legal entity id (the object GET returns is accepted too).',
        }),
      ),
      // Read-only fields of the response, accepted so a GET body can be sent back; ignored.
      id: Type.Optional(Type.Integer()),
      headquarter: Type.Optional(Type.Boolean()),
      department_count: Type.Optional(Type.Integer()),
    },
    { additionalProperties: false },
  ),
)
export type LocationInput = Static<typeof LocationInput>

export const LocationParams = Type.Object({ id: Id })

export const LocationListQuery = listQuery(['id', 'name'], {
  active: Type.Optional(Type.Boolean()),
  headquarter: Type.Optional(Type.Boolean()),
  updated_since: UpdatedSince,
})
export type LocationListQuery = Static<typeof LocationListQuery>

declare module '../events/schema.ts' {
  interface EventObjects {
    'location.created': LocationView
    'location.updated': LocationView
  }
}
