/** User shapes: the profile, the two create forms (batch and single) and the current user's account. */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'
import { Address, LocationView } from '../locations/schema.ts'
import { Currency, LocationSummary } from '../lookups/schema.ts'
import { Email } from './rules.ts'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])

/** A user's home department, with its location. */
export const DepartmentSummary = named(
  'DepartmentSummary',
  Type.Object({ id: Type.Integer(), name: Type.String(), location: LocationSummary }),
)
export const PendingApprovals = named(
  'PendingApprovals',
  Type.Object({
    order: Type.Integer(),
    expense: Type.Integer(),
    travel: Type.Integer(),
    bill: Type.Integer(),
    payment: Type.Integer(),
  }),
)
export const Delegatee = named(
  'Delegatee',
  Type.Object({
    id: Type.Integer({ description: 'Profile id of the delegatee.' }),
    firstName: Type.String(),
    lastName: Type.String(),
    email: Type.String(),
    role: Type.Object({ name: Type.String(), type: Type.Integer() }),
    profile_image: Type.String(),
  }),
)

export const UserProfile = named(
  'UserProfile',
  Type.Object({
    id: Type.Integer({ description: 'Profile id.' }),
    firstName: Type.String(),
    lastName: Type.String(),
    user: Type.Integer({ description: 'Id of the underlying user.' }),
    email: Type.String(),
    department: Nullable(DepartmentSummary),
    location: Nullable(LocationSummary),
    profile_image: Type.String(),
    is_active: Type.Boolean(),
    phone: Type.String(),
    position: Type.String(),
    role: Type.Object({ id: Type.Integer(), name: Type.String(), type: Type.Integer(), tier: Type.String() }),
    approval_delegatee: Nullable(Delegatee),
    pending_approvals_count: PendingApprovals,
    expected_return_date: Nullable(Type.String({ format: 'date' })),
  }),
)
export type UserProfile = Static<typeof UserProfile>

/** Batch item: an array of these creates users all or nothing. `locations` items are location ids or `{id, all_departments, departments}`. */
export const BatchUser = named(
  'BatchUser',
  Type.Object(
    {
      email: Email,
      send_invitation_email: Type.Optional(Type.Boolean({ default: false })),
      first_name: Type.Optional(Type.String({ maxLength: 100 })),
      last_name: Type.Optional(Type.String({ maxLength: 100 })),
      phone: Type.Optional(Type.String({ maxLength: 30 })),
      position: Type.Optional(Type.String({ maxLength: 100 })),
      role_id: Type.Optional(Id),
      all_locations: Type.Optional(Type.Boolean()),
      locations: Type.Optional(
        Type.Array(
          Type.Union([
            Id,
            Type.Object(
              {
                id: Id,
                all_departments: Type.Optional(Type.Boolean()),
                departments: Type.Optional(
                  Type.Array(Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: false })]), {
                    maxItems: 500,
                  }),
                ),
              },
              { additionalProperties: false },
            ),
          ]),
          { maxItems: 500 },
        ),
      ),
      home_department: Type.Optional(Nullable(Id)),
      home_location: Type.Optional(Nullable(Id)),
      legal_entities: Type.Optional(Type.Array(Id, { maxItems: 100 })),
    },
    { additionalProperties: false },
  ),
)
export type BatchUser = Static<typeof BatchUser>

export const MAX_BATCH = 1000
export const BatchBody = Type.Array(BatchUser, { minItems: 1, maxItems: MAX_BATCH })

/** Single form: one user object; also the body of PUT, which replaces exactly these fields. */
export const SingleUser = named(
  'SingleUser',
  Type.Object(
    {
      email: Email,
      firstName: Type.String({ minLength: 1, maxLength: 100 }),
      lastName: Type.String({ minLength: 1, maxLength: 100 }),
      location: Nullable(Id),
      department: Nullable(Id),
      position: Type.Optional(Type.String({ maxLength: 100 })),
      phone: Type.Optional(Type.String({ maxLength: 30 })),
      profile_image: Type.Optional(Type.String({ maxLength: 2000 })),
      is_sso_enabled: Type.Optional(Type.Boolean()),
      legal_entities: Type.Optional(Type.Array(Id, { maxItems: 100 })),
      role_id: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 2147483647,
          description:
            'The profile role (GET /api/v3/roles/). On create, omitted means the least-privileged role; on PUT, omitted keeps the current role.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
)
export type SingleUser = Static<typeof SingleUser>

export const CreateUsersBody = Type.Union([BatchBody, SingleUser], {
  description: 'An array creates a batch (all or nothing, 1 to 1,000 items); an object creates one user.',
})

export const UserParams = Type.Object({ id: Id })

export const UserListQuery = listQuery(['id', 'email', 'firstName', 'lastName'], {
  is_active: Type.Optional(Type.Boolean()),
  location: Type.Optional(Id),
  pending_invite: Type.Optional(Type.Boolean()),
  role: Type.Optional(Id),
  updated_since: UpdatedSince,
})
export type UserListQuery = Static<typeof UserListQuery>

const Permission = Type.Object({ id: Type.Integer(), name: Type.String(), description: Type.String() })
const AccessEntry = Type.Object({
  flattened: Type.Array(Type.String()),
  roles: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), permissions: Type.Array(Permission) })),
})
/** A location address as `me` shows its department's branch: without `id`. */
export const AddressNoId = named('AddressWithoutId', Type.Omit(Address, ['id']))

export type AddressNoId = Static<typeof AddressNoId>

/** A department's location as `me` shows it: the location's own fields, currency and addresses without ids. */
export const BRANCH_FIELDS = [
  'name',
  'url',
  'logo',
  'phoneOne',
  'fax',
  'email',
  'language',
  'locationTimezone',
  'active',
  'external_id',
] as const
const Branch = Type.Object({
  ...Type.Pick(LocationView, BRANCH_FIELDS).properties,
  currency: Type.Omit(Currency, ['id']),
  primary_billing_address: AddressNoId,
  primary_shipping_address: AddressNoId,
})

/** The current user's account: profile, tenant, permissions per location, department with its location. */
export const Me = named(
  'UserProfileMe',
  Type.Object({
    id: Type.Integer(),
    domains: Type.Object({
      active: Type.Boolean(),
      service_domains: Type.Array(Type.Object({ subdomain: Type.String(), name: Type.String() })),
    }),
    systemaccess_cache: Type.Object({
      structured: Type.Record(Type.String(), AccessEntry, {
        description: 'Keyed by location id, and "system" for system-wide roles.',
      }),
      flattened: Type.Array(Type.String()),
    }),
    approval_delegatee: Nullable(Delegatee),
    is_approval_delegatee: Type.Boolean(),
    department: Nullable(
      Type.Object({
        branch: Branch,
        external_id: Type.String(),
        name: Type.String(),
        active: Type.Boolean(),
      }),
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    firstName: Type.String(),
    lastName: Type.String(),
    email: Type.String(),
    position: Type.String(),
    phone: Type.String(),
    address: Type.String(),
    notifications: Type.Boolean(),
    is_active: Type.Boolean(),
    pending_invite: Type.Boolean(),
    role: Type.Integer({ description: 'Role type of the user’s role (0 User … 10 FNG Controller).' }),
    mobile: Type.Boolean(),
    profile_image: Type.String(),
    chat_user_id: Type.String(),
    is_sso_enabled: Type.Boolean(),
    last_changed_by: Nullable(Type.Integer()),
    user: Type.Integer(),
    pending_approvals_count: PendingApprovals,
  }),
)
export type Me = Static<typeof Me>

declare module '../events/schema.ts' {
  interface EventObjects {
    'user.created': UserProfile
    'user.updated': UserProfile
    'user.deactivated': UserProfile
  }
}

/** A user's per-location grants: the complete set, each a location id and a role id. */
export const LocationRoles = named(
  'LocationRoles',
  Type.Array(
    Type.Object(
      {
        location: Type.Integer({ minimum: 1, maximum: 2147483647, examples: [2] }),
        role: Type.Integer({ minimum: 1, maximum: 2147483647, examples: [4] }),
      },
      { additionalProperties: false },
    ),
    { maxItems: 500 },
  ),
)

/** A user's out-of-office delegation: both fields null when there is none (or it has expired or ended). */
export const Delegation = named(
  'Delegation',
  Type.Object({
    delegatee: Type.Union([
      Type.Object({
        id: Type.Integer({ examples: [9] }),
        first_name: Type.String(),
        last_name: Type.String(),
        email: Type.String(),
      }),
      Type.Null(),
    ]),
    expected_return_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], { examples: ['2026-12-01'] }),
  }),
)
export type Delegation = Static<typeof Delegation>

export const DelegationInput = named(
  'DelegationInput',
  Type.Object(
    {
      delegatee: Type.Union(
        [
          Type.Integer({ minimum: 1, maximum: 2147483647 }),
          Type.Object(
            { id: Type.Integer({ minimum: 1, maximum: 2147483647 }) },
            { additionalProperties: true, description: 'The form GET answers with: only `id` is read.' },
          ),
        ],
        {
          description:
            'The user id (/api/v3/users/{id}/) who decides your approvals while you are away, or the delegatee object a GET returned.',
          examples: [9],
        },
      ),
      expected_return_date: Type.Optional(
        Type.Union([Type.String({ format: 'date' }), Type.Null()], {
          description: 'The last day away (UTC): the delegation ends when it is over. Null or omitted: until ended.',
          examples: ['2026-12-01'],
        }),
      ),
    },
    { additionalProperties: false },
  ),
)
export type DelegationInput = Static<typeof DelegationInput>
