/** Accounts (general-ledger codes): the read shape, the write body, the list query and their events. */
import { Type, type Static } from 'typebox'
import { Id, named } from '../core/schema.ts'
import { listQuery } from '../core/list-query.ts'

export const Account = named(
  'Account',
  Type.Object({
    id: Type.Integer({ examples: [3] }),
    code: Type.String({
      description: 'The account’s code in the general ledger, unique in the tenant ignoring case.',
      examples: ['6100'],
    }),
    name: Type.String({ examples: ['Office supplies'] }),
    active: Type.Boolean(),
  }),
)
export type Account = Static<typeof Account>

export const AccountInput = named(
  'AccountInput',
  Type.Object(
    {
      code: Type.String({
        minLength: 1,
        maxLength: 32,
        description: '1–32 characters, unique in the tenant ignoring case.',
        examples: ['6100'],
      }),
      name: Type.Optional(Type.String({ maxLength: 200, examples: ['Office supplies'] })),
      active: Type.Optional(Type.Boolean({ description: 'Default true.' })),
      id: Type.Optional(Type.Unknown({ description: 'Read-only; ignored.' })),
    },
    { additionalProperties: false },
  ),
)
export type AccountInput = Static<typeof AccountInput>

/** How a line shows its account. */
export const AccountRef = named(
  'AccountRef',
  Type.Union([Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() }), Type.Null()], {
    description: 'The line’s general-ledger account, or null.',
  }),
)
export type AccountRef = Static<typeof AccountRef>

export const AccountListQuery = listQuery(['id', 'code'], {
  active: Type.Optional(Type.Boolean()),
})
export type AccountListQuery = Static<typeof AccountListQuery>
export const IdParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'account.created': Account
    'account.updated': Account
  }
}
