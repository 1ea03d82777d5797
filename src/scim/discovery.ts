/** The SCIM discovery documents (RFC 7643 §5–7): what this service provider supports, and its two resources. */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User'
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group'
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse'
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
export const MAX_COUNT = 200
export const MAX_OPERATIONS = 100

const attribute = (name: string, type: string, extra: object = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
})

const SCHEMAS = [
  {
    id: USER_SCHEMA,
    name: 'User',
    description: 'A person of the company; userName is their e-mail address.',
    attributes: [
      attribute('userName', 'string', { required: true, uniqueness: 'server', description: 'The e-mail address.' }),
      attribute('externalId', 'string', { caseExact: true }),
      attribute('name', 'complex', {
        subAttributes: [
          attribute('givenName', 'string'),
          attribute('familyName', 'string'),
          attribute('formatted', 'string', { mutability: 'readOnly' }),
        ],
      }),
      attribute('displayName', 'string', { mutability: 'readOnly' }),
      attribute('emails', 'complex', {
        multiValued: true,
        subAttributes: [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean')],
      }),
      attribute('active', 'boolean', { description: 'false deactivates the user (never deletes).' }),
      attribute('groups', 'complex', {
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [attribute('value', 'string'), attribute('display', 'string'), attribute('$ref', 'reference')],
      }),
    ],
  },
  {
    id: GROUP_SCHEMA,
    name: 'Group',
    description: "A group of the identity provider; Single sign-on's group roles grant its members roles.",
    attributes: [
      attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
      attribute('externalId', 'string', { caseExact: true }),
      attribute('members', 'complex', {
        multiValued: true,
        subAttributes: [
          attribute('value', 'string', { mutability: 'immutable' }),
          attribute('display', 'string'),
          attribute('$ref', 'reference'),
        ],
      }),
    ],
  },
]

const meta = (base: string, resourceType: string, path: string) => ({ resourceType, location: `${base}/${path}` })

export const serviceProviderConfig = (base: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
  documentationUri: `${base.replace(/\/scim\/v2$/, '')}/docs`,
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_COUNT },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'Bearer token',
      description: 'A SCIM token made by a superuser (Settings → Single sign-on, or POST /api/v3/scim-tokens/).',
      primary: true,
    },
  ],
  meta: meta(base, 'ServiceProviderConfig', 'ServiceProviderConfig'),
})

const resourceTypes = (base: string) => [
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    schema: USER_SCHEMA,
    meta: meta(base, 'ResourceType', 'ResourceTypes/User'),
  },
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    schema: GROUP_SCHEMA,
    meta: meta(base, 'ResourceType', 'ResourceTypes/Group'),
  },
]

const schemas = (base: string) =>
  SCHEMAS.map((s) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    ...s,
    meta: meta(base, 'Schema', `Schemas/${s.id}`),
  }))

export const listOf = (resources: unknown[], startIndex = 1, total = resources.length) => ({
  schemas: [LIST_SCHEMA],
  totalResults: total,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
})

export const discovery = {
  resourceTypes,
  resourceType: (base: string, id: string) => resourceTypes(base).find((r) => r.id === id),
  schemas,
  schema: (base: string, id: string) => schemas(base).find((s) => s.id === id),
}
