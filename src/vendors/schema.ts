/** Vendor shapes on the wire (field names as docs/api.md lists them). */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, Name, named } from '../core/schema.ts'
import { VendorLookup } from '../lookups/schema.ts'

const Str = (maxLength: number) => Type.String({ maxLength })

/** A payment/shipping term or method, as listed at its look-up (e.g. /api/v3/payment-terms/); null when unset. */
export const VendorRef = Type.Union([VendorLookup, Type.Null()])

/** Vendor type codes: 1 other, 2 marketplace punch-out, 3 preferred, 4 regular, 5 employee, 6 card provider, 7 checkout. */
export const VendorType = Type.Integer({
  minimum: 1,
  maximum: 7,
  description:
    'Vendor type: 1 other, 2 marketplace (punch-out), 3 preferred, 4 regular, 5 employee, 6 card provider, 7 checkout.',
  examples: [3],
})

export const Vendor = named(
  'Vendor',
  Type.Object({
    id: Type.Integer(),
    name: Str(150),
    active: Type.Boolean(),
    addressLineOne: Str(300),
    addressLineTwo: Str(300),
    postalCode: Str(20),
    city: Str(50),
    state_province: Str(40),
    country: Str(80),
    phoneOne: Str(20),
    phoneTwo: Str(20),
    fax: Str(20),
    email: Type.Array(Type.String()),
    comments: Type.String(),
    contact: Str(50),
    url: Str(200),
    external_id: Str(100),
    dateModified: Type.String({ format: 'date-time' }),
    currency: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Id of the vendor’s currency (see GET /api/v2/currencies/); null when unset. (A location names its currency instead.)',
    }),
    payment_term_ref: VendorRef,
    shipping_term_ref: VendorRef,
    payment_method_ref: VendorRef,
    shipping_method_ref: VendorRef,
    tax: Type.Union([Type.Integer(), Type.Null()]),
    type: VendorType,
    default_payment_method: Type.Union([Type.Integer(), Type.Null()]),
    is_1099_eligible: Type.Union([Type.Boolean(), Type.Null()]),
    overall_score: Type.Union([Type.String(), Type.Null()]),
    is_auto_email_po_enabled: Type.Boolean(),
    po_pdf_labels: Str(200),
    email_configurations: Type.Record(
      Type.String(),
      Type.Object({ auto_po: Type.Optional(Type.Boolean()), payment_remittance: Type.Optional(Type.Boolean()) }),
    ),
  }),
)
export type Vendor = Static<typeof Vendor>

export const VENDOR_ORDER_FIELDS = ['id', 'name', 'external_id', 'dateModified'] as const

export const VendorListQuery = listQuery(VENDOR_ORDER_FIELDS, {
  active: Type.Optional(Type.Boolean()),
  type: Type.Optional(VendorType),
  external_id: Type.Optional(Str(100)),
  name: Type.Optional(
    Type.String({ maxLength: 150, description: 'Exact name (case-sensitive); for a substring use search.' }),
  ),
  updated_since: UpdatedSince,
})
export type VendorListQuery = Static<typeof VendorListQuery>

/** A reference to a payment/shipping term or method: its id, or the object GET returns (only `id` is read). */
const RefInput = Type.Union([Id, Type.Object({ id: Id }), Type.Null()])

const vendorInputFields = {
  name: Name(150),
  active: Type.Optional(Type.Boolean()),
  type: Type.Optional(VendorType),
  addressLineOne: Type.Optional(Str(300)),
  addressLineTwo: Type.Optional(Str(300)),
  postalCode: Type.Optional(Str(20)),
  city: Type.Optional(Str(50)),
  state_province: Type.Optional(Str(40)),
  country: Type.Optional(Str(80)),
  phoneOne: Type.Optional(Str(20)),
  phoneTwo: Type.Optional(Str(20)),
  fax: Type.Optional(Str(20)),
  email: Type.Optional(Type.Array(Type.String({ format: 'email', maxLength: 254 }), { maxItems: 20 })),
  comments: Type.Optional(Str(10000)),
  contact: Type.Optional(Str(50)),
  url: Type.Optional(Str(200)),
  external_id: Type.Optional(Str(100)),
  currency: Type.Optional(
    Type.Union([Id, Type.Null()], {
      description: 'Id of a currency of your tenant (GET /api/v2/currencies/), or null.',
    }),
  ),
  payment_term_ref: Type.Optional(RefInput),
  shipping_term_ref: Type.Optional(RefInput),
  payment_method_ref: Type.Optional(RefInput),
  shipping_method_ref: Type.Optional(RefInput),
  tax: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()])),
  default_payment_method: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()])),
  is_1099_eligible: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  overall_score: Type.Optional(
    Type.Union([
      Type.String({ pattern: '^-?\\d{1,2}(\\.\\d{1,3})?$', maxLength: 7 }),
      Type.Number({ minimum: -99.999, maximum: 99.999 }),
      Type.Null(),
    ]),
  ),
  is_auto_email_po_enabled: Type.Optional(Type.Boolean()),
  po_pdf_labels: Type.Optional(Str(200)),
  email_configurations: Type.Optional(
    Type.Record(
      Type.String({ maxLength: 254 }),
      Type.Object(
        { auto_po: Type.Optional(Type.Boolean()), payment_remittance: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
      { maxProperties: 50 },
    ),
  ),
  // Read-only fields of the response, accepted so a GET body can be sent back; ignored.
  id: Type.Optional(Type.Integer()),
  dateModified: Type.Optional(Type.String()),
}

/** Create and full replacement: every field; omitted ones take their defaults. */
export const VendorInput = named('VendorInput', Type.Object(vendorInputFields, { additionalProperties: false }))
export type VendorInput = Static<typeof VendorInput>
/** Partial update: only the fields sent change. */
export const VendorPatch = named('VendorPatch', Type.Partial(VendorInput, { additionalProperties: false }))
export type VendorPatch = Static<typeof VendorPatch>
export const VendorParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'vendor.created': Vendor
    'vendor.updated': Vendor
  }
}
