/** Application shapes on the wire: never the secret, except in the one response that issues it. */
import { Type, type Static } from 'typebox'
import { listQuery } from '../core/list-query.ts'
import { named } from '../core/schema.ts'

export const Application = named(
  'Application',
  Type.Object({
    client_id: Type.String(),
    description: Type.String(),
    owner_email: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
)
export type Application = Static<typeof Application>

export const ApplicationListQuery = listQuery(['id'], {})
export type ApplicationListQuery = Static<typeof ApplicationListQuery>
export const ApplicationInput = named(
  'ApplicationInput',
  Type.Object({ description: Type.Optional(Type.String({ maxLength: 255 })) }, { additionalProperties: false }),
)
export const Credentials = named('Credentials', Type.Object({ client_id: Type.String(), client_secret: Type.String() }))
export const ClientIdParams = Type.Object({ client_id: Type.String({ maxLength: 64 }) })
