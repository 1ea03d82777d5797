/** The tenant's identity provider on the wire (`GET, PUT /api/v3/sso/`): the client secret goes in, never out. */
import { Type, type Static } from 'typebox'
import { named } from '../core/schema.ts'

const Nullable = <T extends object>(schema: T, description?: string, example?: unknown) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description, examples: [example] })

export const PasswordLoginSchema = Type.Union(
  [Type.Literal('allowed'), Type.Literal('superusers_only'), Type.Literal('disabled')],
  {
    description: 'Console password sign-in while SSO is on: everyone, superusers only, or nobody.',
    examples: ['superusers_only'],
  },
)

export const GroupRole = named(
  'SsoGroupRole',
  Type.Object(
    {
      group: Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'A group name (groups claim) or SCIM group.',
        examples: ['Purchasing'],
      }),
      role: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'A role id.' }),
      location: Nullable(Type.Integer({ minimum: 1, maximum: 2147483647 }), 'A location id; null: tenant-wide.', null),
    },
    { additionalProperties: false },
  ),
)

const common = {
  issuer: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'The OpenID issuer URL (checked by discovery).',
    examples: ['https://acme.okta.com'],
  }),
  client_id: Type.String({ minLength: 1, maxLength: 500 }),
  allowed_domains: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
    maxItems: 50,
    description: 'E-mail domains allowed for JIT accounts.',
    examples: [['acme.com']],
  }),
  jit_provisioning: Type.Boolean({
    description: 'Create users at first sign-in (JIT).',
    examples: [true],
  }),
  default_role: Nullable(
    Type.Integer({ minimum: 1, maximum: 2147483647 }),
    'Role id of JIT users; null: least-privileged.',
    3,
  ),
  groups_claim: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'The ID token claim listing groups.',
    examples: ['groups'],
  }),
  group_roles: Type.Array(GroupRole, {
    maxItems: 200,
    description: 'Roles that groups grant.',
    examples: [[{ group: 'Purchasing', role: 2, location: null }]],
  }),
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
          description: 'Write-only; omitted: kept.',
        }),
      ),
      scopes: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 500,
          default: 'openid email profile',
          description: 'Scopes to request.',
          examples: ['openid email profile groups'],
        }),
      ),
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
    scopes: Type.String({ description: 'Scopes to request.', examples: ['openid email profile'] }),
    redirect_uri: Type.String({
      description: 'The redirect URI to register.',
      examples: ['https://acme.example.com/console/sso/callback'],
    }),
    scim_base_url: Type.String({
      description: 'The SCIM base URL.',
      examples: ['https://acme.example.com/scim/v2'],
    }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type SsoConfig = Static<typeof SsoConfig>
