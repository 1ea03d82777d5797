/**
 * The read-only look-up lists a client needs to build valid bodies: currencies, legal entities,
 * departments, roles, and the payment/shipping terms and methods a vendor refers to.
 */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Name, named } from '../core/schema.ts'

export const Currency = named(
  'Currency',
  Type.Object({
    id: Type.Integer(),
    name: Type.String({
      maxLength: 10,
      description: 'ISO 4217 code, e.g. "USD"; how locations refer to the currency.',
    }),
    description: Type.String({ maxLength: 100 }),
    // A decimal string, never a JSON number: rates keep all six decimals exactly ("1.350000").
    rate: Type.String({
      pattern: '^-?\\d{1,9}(\\.\\d{1,6})?$',
      description: 'Exchange rate to the base currency, as a decimal string.',
    }),
    base: Type.Boolean({ description: "Whether this is the tenant's base currency." }),
    active: Type.Boolean(),
  }),
)
export type Currency = Static<typeof Currency>

export const LegalEntity = named(
  'LegalEntity',
  Type.Object({
    id: Type.Integer(),
    uuid: Type.String({ format: 'uuid' }),
    name: Type.String({ maxLength: 150 }),
    active: Type.Boolean(),
  }),
)
export type LegalEntity = Static<typeof LegalEntity>
/** A legal entity as a location carries it. */
export const LegalEntitySummary = named('LegalEntitySummary', Type.Pick(LegalEntity, ['id', 'uuid', 'name']))

/** The department's location; `headquarter` marks the tenant's first location. */
export const LocationSummary = named(
  'LocationSummary',
  Type.Object({
    id: Type.Integer(),
    name: Type.String({ maxLength: 150 }),
    headquarter: Type.Boolean(),
  }),
)

export const Department = named(
  'Department',
  Type.Object({
    id: Type.Integer(),
    name: Type.String({ maxLength: 150 }),
    external_id: Type.String({ maxLength: 100 }),
    active: Type.Boolean(),
    punchout_email: Type.String(),
    branch: LocationSummary,
  }),
)
export type Department = Static<typeof Department>

export const Role = named(
  'Role',
  Type.Object({
    id: Type.Integer(),
    name: Type.String({ maxLength: 150 }),
    type: Type.Integer({
      minimum: 0,
      maximum: 10,
      description:
        'Role type: 0 User, 1 Approver, 2 Purchaser, 3 Receiver, 4 Administrator, 5 EKA, 6 Accounting, 7 Superuser, 8 Accounts Payable, 9 FNG Approver, 10 FNG Controller.',
    }),
    tier: Type.Union([Type.Literal('Basic'), Type.Literal('Pro')]),
    permissions: Type.Array(Type.String(), { description: 'The permission keys the role grants, sorted.' }),
  }),
)
export type Role = Static<typeof Role>

/** A payment term, shipping term, payment method or shipping method (what a vendor's `*_ref` fields name). */
export const VendorLookup = named(
  'VendorLookup',
  Type.Object({
    id: Type.Integer(),
    name: Type.String({ maxLength: 100 }),
    description: Type.String(),
    active: Type.Boolean(),
  }),
)
export type VendorLookup = Static<typeof VendorLookup>

const Active = Type.Optional(Type.Boolean())

export const CurrencyListQuery = listQuery(['id', 'name'], {
  active: Active,
  base: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ maxLength: 10, description: 'Exact currency code.' })),
  updated_since: UpdatedSince,
})
export const LegalEntityListQuery = listQuery(['id', 'name'], { active: Active, updated_since: UpdatedSince })
export const DepartmentListQuery = listQuery(['id', 'name'], {
  location: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Only departments of this location.' }),
  ),
  active: Active,
  updated_since: UpdatedSince,
  requestable: Type.Optional(
    Type.Union([Type.Literal('ORDER'), Type.Literal('EXPENSE'), Type.Literal('TRAVEL'), Type.Literal('PAY_REQUEST')], {
      description:
        'Only the departments the caller may make this kind of document for: those at locations where they hold ' +
        'nav_request (a superuser: every one). Accepts ORDER, EXPENSE, TRAVEL and PAY_REQUEST.',
      examples: ['EXPENSE'],
    }),
  ),
})
export const RoleListQuery = listQuery(['id', 'name'], { updated_since: UpdatedSince })
export const VendorLookupListQuery = listQuery(['id', 'name'], { active: Active, updated_since: UpdatedSince })

export type CurrencyListQuery = Static<typeof CurrencyListQuery>
export type LegalEntityListQuery = Static<typeof LegalEntityListQuery>
export type DepartmentListQuery = Static<typeof DepartmentListQuery>
export type RoleListQuery = Static<typeof RoleListQuery>
export type VendorLookupListQuery = Static<typeof VendorLookupListQuery>

/** A name a person types: not blank, trimmed by the service. */
const LookupName = (maxLength: number, example: string) => Name(maxLength, { pattern: '\\S', examples: [example] })
const ActiveInput = Type.Optional(
  Type.Boolean({ description: 'false deactivates it (nothing is deleted); default true.' }),
)

/** POST /api/v3/departments/ and PUT /api/v3/departments/{id}/ (a full replacement: omitted fields take their defaults). */
export const DepartmentInput = named(
  'DepartmentInput',
  Type.Object(
    {
      name: LookupName(150, 'Facilities'),
      location: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The location’s id.', examples: [1] }),
      external_id: Type.Optional(Type.String({ maxLength: 100, examples: ['FAC-01'] })),
      active: ActiveInput,
    },
    { additionalProperties: false },
  ),
)
export type DepartmentInput = Static<typeof DepartmentInput>

/** The ISO 4217 form of a currency code. */
export const CURRENCY_CODE_PATTERN = '^[A-Z]{3}$'
/** An exchange rate as typed: a positive decimal with up to 6 decimals. */
export const RATE_PATTERN = '^\\d{1,9}(\\.\\d{1,6})?$'

/** POST /api/v2/currencies/ and PUT /api/v2/currencies/{id}/. */
export const CurrencyInput = named(
  'CurrencyInput',
  Type.Object(
    {
      name: Type.String({
        pattern: CURRENCY_CODE_PATTERN,
        maxLength: 3,
        description: 'ISO 4217 code (three capital letters); unique in the tenant.',
        examples: ['EUR'],
      }),
      description: Type.Optional(Type.String({ maxLength: 100, examples: ['Euro'] })),
      rate: Type.String({
        pattern: RATE_PATTERN,
        maxLength: 16,
        description:
          'Exchange rate to the base currency, more than 0 (the base currency’s stays as it is: it cannot be re-rated).',
        examples: ['1.085'],
      }),
      active: ActiveInput,
    },
    { additionalProperties: false },
  ),
)
export type CurrencyInput = Static<typeof CurrencyInput>

/** POST and PUT on the four vendor look-ups (payment and shipping terms and methods). */
export const VendorLookupInput = named(
  'VendorLookupInput',
  Type.Object(
    {
      name: LookupName(100, 'Net 30'),
      description: Type.Optional(Type.String({ maxLength: 500, examples: ['Payment due 30 days after the invoice.'] })),
      active: ActiveInput,
    },
    { additionalProperties: false },
  ),
)
export type VendorLookupInput = Static<typeof VendorLookupInput>
