/** Vendor shapes on the wire (field names as the spec and the upstream reference spell them). */
import { Type, type Static } from 'typebox'
import { listQuery } from '../http/list.ts'

const Str = (maxLength: number) => Type.String({ maxLength })

export const VendorRef = Type.Union([
  Type.Object({ id: Type.Integer(), name: Type.String(), description: Type.String(), active: Type.Boolean() }),
  Type.Null(),
])

/** Vendor type codes: 1 other, 2 marketplace punch-out, 3 preferred, 4 regular, 5 employee, 6 card provider, 7 checkout. */
export const VendorType = Type.Integer({ minimum: 1, maximum: 7 })

export const Vendor = Type.Object({
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
  currency: Type.Union([Type.Integer(), Type.Null()]),
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
})
export type Vendor = Static<typeof Vendor>

export const VENDOR_ORDER_FIELDS = ['id', 'name', 'external_id', 'dateModified'] as const

export const VendorListQuery = listQuery(VENDOR_ORDER_FIELDS, {
  active: Type.Optional(Type.Boolean()),
  type: Type.Optional(VendorType),
  external_id: Type.Optional(Str(100)),
  name: Type.Optional(Str(150)),
})
export type VendorListQuery = Static<typeof VendorListQuery>
