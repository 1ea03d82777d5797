/** The tenant's identity provider on the wire (`GET, PUT /api/v3/sso/`): the client secret goes in, never out. */
import { Type, type Static } from 'typebox'
import { Id, named } from '../core/schema.ts'

const Nullable = <T extends object>(schema: T) => Type.Union([schema, Type.Null()])

export const PasswordLoginSchema = Type.Union(
  [Type.Literal('allowed'), Type.Literal('superusers_only'), Type.Literal('disabled')],
  {
    description:
      'Password sign-in to the console while single sign-on is configured: everyone, superusers only (a way in when the provider is down), or nobody.',
  },
)

export const GroupRole = named(
  'SsoGroupRole',
  Type.Object(
    {
      group: Type.String({
        minLength: 1,
        maxLength: 256,
        description: "A group as the provider names it (the groups claim's value, or a SCIM group's displayName).",
      }),
      role: Id,
      location: Nullable(Id),
    },
    { additionalProperties: false },
  ),
)

const common = {
  issuer: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'The OpenID provider issuer URL; checked by OpenID discovery when saved.',
    examples: ['https://acme.okta.com'],
  }),
  client_id: Type.String({ minLength: 1, maxLength: 500 }),
  allowed_domains: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
    maxItems: 50,
    description: 'E-mail domains whose people may be created at their first sign-in (just-in-time).',
  }),
  jit_provisioning: Type.Boolean({
    description: 'Create a user at the first sign-in of a person of an allowed domain.',
  }),
  default_role: Nullable(Id),
  groups_claim: Type.String({ minLength: 1, maxLength: 100 }),
  group_roles: Type.Array(GroupRole, { maxItems: 200 }),
  password_login: PasswordLoginSchema,
}

export const SsoConfigInput = named(
  'SsoConfigInput',
  Type.Object(
    {
      issuer: common.issuer,
      client_id: common.client_id,
      client_secret: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 2000,
          description: 'Write-only. Required the first time; omitted later, the stored secret is kept.',
        }),
      ),
      scopes: Type.Optional(Type.String({ minLength: 1, maxLength: 500, default: 'openid email profile' })),
      allowed_domains: Type.Optional(common.allowed_domains),
      jit_provisioning: Type.Optional(common.jit_provisioning),
      default_role: Type.Optional(common.default_role),
      groups_claim: Type.Optional(common.groups_claim),
      group_roles: Type.Optional(common.group_roles),
      password_login: Type.Optional(PasswordLoginSchema),
    },
    { additionalProperties: false },
  ),
)
export type SsoConfigInput = Static<typeof SsoConfigInput>

export const SsoConfig = named(
  'SsoConfig',
  Type.Object({
    ...common,
    scopes: Type.String(),
    redirect_uri: Type.String({ description: 'Register this at the provider as the sign-in redirect URI.' }),
    scim_base_url: Type.String({ description: 'The SCIM 2.0 base URL to give the provider.' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type SsoConfig = Static<typeof SsoConfig>
