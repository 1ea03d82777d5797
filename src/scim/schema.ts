/** SCIM tokens on the wire (`/api/v3/scim-tokens/`): the token itself only in the create response. */
import { Type, type Static } from 'typebox'
import { listQuery } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'

export const ScimToken = named(
  'ScimToken',
  Type.Object({
    id: Type.Integer(),
    description: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
)
export type ScimToken = Static<typeof ScimToken>

export const ScimTokenWithSecret = named(
  'ScimTokenWithSecret',
  Type.Object({
    ...ScimToken.properties,
    token: Type.String({ description: 'The token; shown only here.' }),
    scim_base_url: Type.String({
      description: 'The SCIM base URL.',
      examples: ['https://acme.example.com/scim/v2'],
    }),
  }),
)
export type ScimTokenWithSecret = Static<typeof ScimTokenWithSecret>

export const ScimTokenInput = named(
  'ScimTokenInput',
  Type.Object(
    { description: Type.Optional(Type.String({ maxLength: 200, examples: ['Okta provisioning'] })) },
    { additionalProperties: false },
  ),
)
export type ScimTokenInput = Static<typeof ScimTokenInput>

export const ScimTokenParams = Type.Object({ id: Id })

export const ScimTokenListQuery = listQuery(['id'], {})
export type ScimTokenListQuery = Static<typeof ScimTokenListQuery>
