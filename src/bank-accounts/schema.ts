/** Bank account shapes on the wire (DECISIONS, "Payment requests and payment runs"). */
import { Type, type Static } from 'typebox'
import { listQuery } from '../core/list-query.ts'
import { Id, Name, named } from '../core/schema.ts'
import { Person } from '../approvals/schema.ts'

const Instant = (description: string, example: string | null) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description, examples: [example] })

export const BankAccountStatus = Type.Union([Type.Literal('unverified'), Type.Literal('verified')], {
  description: 'unverified after every change, until another accounts-payable user verifies it.',
  examples: ['verified'],
})

export const VendorBankAccount = named(
  'VendorBankAccount',
  Type.Object({
    vendor: Type.Object({ id: Type.Integer(), name: Type.String() }, { examples: [{ id: 3, name: 'Acme Supplies' }] }),
    account_holder: Type.String({ description: 'The name on the account.', examples: ['Acme Supplies GmbH'] }),
    iban: Type.Union([Type.String(), Type.Null()], {
      description:
        'Electronic form (no spaces). Masked to its last four characters for readers without accounts_payable.',
      examples: ['DE89370400440532013000'],
    }),
    bic: Type.Union([Type.String(), Type.Null()], {
      description: 'BIC (ISO 9362), 8 or 11 characters; null when none was given.',
      examples: ['COBADEFFXXX'],
    }),
    account_number: Type.Union([Type.String(), Type.Null()], {
      description: 'For accounts without an IBAN. Masked like the IBAN.',
      examples: [null],
    }),
    routing_number: Type.Union([Type.String(), Type.Null()], {
      description: 'The bank’s routing or sort code; null when none was given.',
      examples: [null],
    }),
    country: Type.String({ description: 'ISO 3166 alpha-2; from the IBAN when it has one.', examples: ['DE'] }),
    status: BankAccountStatus,
    masked: Type.Boolean({ description: 'Whether iban and account_number are masked for you.', examples: [false] }),
    changed_by: Person,
    changed_at: Type.String({ format: 'date-time' }),
    verified_by: Type.Union([Person, Type.Null()], {
      description: 'Who verified it (another user than the one who last changed it); null while unverified.',
    }),
    verified_at: Instant('When it was verified; null while unverified.', '2026-11-21T09:30:00.000Z'),
  }),
)
export type VendorBankAccount = Static<typeof VendorBankAccount>

const Text = (maxLength: number, description: string, example: string) =>
  Type.String({ maxLength, description, examples: [example] })
/** A text or null, described as a whole. */
const NullableText = (maxLength: number, description: string, example: string) =>
  Type.Union([Type.String({ maxLength }), Type.Null()], { description, examples: [example] })
/** A field of the read shape, accepted so a GET body can be sent back. */
const Ignored = (example: unknown) =>
  Type.Optional(Type.Unknown({ description: 'Read-only; ignored.', examples: [example] }))
const PERSON_EXAMPLE = { id: 7, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' }

export const VendorBankAccountInput = named(
  'VendorBankAccountInput',
  Type.Object(
    {
      account_holder: Name(140, { description: 'The name on the account.', examples: ['Acme Supplies GmbH'] }),
      iban: Type.Optional(
        NullableText(64, 'IBAN (ISO 13616); spaces are ignored; null for none.', 'DE89 3704 0044 0532 0130 00'),
      ),
      bic: Type.Optional(NullableText(20, 'BIC (ISO 9362), 8 or 11 characters; null for none.', 'COBADEFFXXX')),
      account_number: Type.Optional(NullableText(34, 'For an account without an IBAN; null for none.', '000123456789')),
      routing_number: Type.Optional(NullableText(34, 'The bank’s routing or sort code; null for none.', '021000021')),
      country: Type.Optional(Text(2, 'ISO 3166 alpha-2; default: the IBAN’s.', 'DE')),
      vendor: Ignored({ id: 3, name: 'Acme Supplies' }),
      status: Ignored('verified'),
      masked: Ignored(false),
      changed_by: Ignored(PERSON_EXAMPLE),
      changed_at: Ignored('2026-11-20T16:05:00.000Z'),
      verified_by: Ignored(PERSON_EXAMPLE),
      verified_at: Ignored('2026-11-21T09:30:00.000Z'),
    },
    {
      additionalProperties: false,
      description: 'The whole account: an IBAN, or an account number (with a routing number where the bank needs one).',
      examples: [{ account_holder: 'Acme Supplies GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' }],
    },
  ),
)
export type VendorBankAccountInput = Static<typeof VendorBankAccountInput>

export const CompanyBankAccount = named(
  'CompanyBankAccount',
  Type.Object({
    id: Type.Integer({ examples: [1] }),
    name: Type.String({ examples: ['Operating account'] }),
    account_holder: Type.String({
      description: 'The name on the account (the debtor in payment files).',
      examples: ['Example Corp'],
    }),
    iban: Type.String({
      description: 'IBAN (ISO 13616), electronic form (no spaces).',
      examples: ['DE02120300000000202051'],
    }),
    bic: Type.String({ description: 'BIC (ISO 9362), 8 or 11 characters.', examples: ['BYLADEM1001'] }),
    currency: Type.String({ examples: ['EUR'] }),
    active: Type.Boolean({ examples: [true] }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type CompanyBankAccount = Static<typeof CompanyBankAccount>

export const CompanyBankAccountInput = named(
  'CompanyBankAccountInput',
  Type.Object(
    {
      name: Name(200, { examples: ['Operating account'] }),
      account_holder: Name(140, {
        description: 'The name on the account (the debtor in payment files).',
        examples: ['Example Corp'],
      }),
      iban: Text(64, 'IBAN (ISO 13616); spaces are ignored.', 'DE02 1203 0000 0000 2020 51'),
      bic: Text(20, 'BIC (ISO 9362), 8 or 11 characters.', 'BYLADEM1001'),
      currency: Type.Union([Type.String({ minLength: 1, maxLength: 10 }), Type.Object({ name: Type.String() })], {
        description: 'The currency’s name (or the read object).',
        examples: ['EUR'],
      }),
      active: Type.Optional(Type.Boolean({ default: true })),
      id: Type.Optional(Type.Unknown({ description: 'Read-only; ignored.' })),
      created_at: Type.Optional(Type.Unknown({ description: 'Read-only; ignored.' })),
      updated_at: Type.Optional(Type.Unknown({ description: 'Read-only; ignored.' })),
    },
    { additionalProperties: false },
  ),
)
export type CompanyBankAccountInput = Static<typeof CompanyBankAccountInput>

export const CompanyBankAccountListQuery = listQuery(['id', 'name'], {
  active: Type.Optional(Type.Boolean()),
})
export type CompanyBankAccountListQuery = Static<typeof CompanyBankAccountListQuery>
export const IdParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'vendor.bank_account_changed': VendorBankAccount
    'vendor.bank_account_verified': VendorBankAccount
  }
}
