/** SQL for purchase requests and their lines. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { byTenant } from '../db/joins.ts'
import { documentScope } from '../access/document-scope.ts'
import { listSql } from '../db/list.ts'
import type { DB, PlannedStep, RequestStatus } from '../db/schema.ts'
import type { Person } from '../approvals/schema.ts'
import { RequestListQuery } from './schema.ts'

export interface LineRow {
  id: number
  description: string
  vendor: number | null
  quantity: string
  unit_price: string
  account: { id: number; code: string; name: string } | null
}

function selectRequests(db: Kysely<DB>) {
  return db
    .selectFrom('purchase_requests as r')
    .innerJoin('user_profiles as rp', byTenant('rp', 'r.requester_id', 'user_id'))
    .innerJoin('users as ru', byTenant('ru', 'r.requester_id'))
    .innerJoin('locations as l', byTenant('l', 'r.location_id'))
    .innerJoin('currencies as c', byTenant('c', 'r.currency_id'))
    .leftJoin('departments as d', byTenant('d', 'r.department_id'))
    .select([
      'r.id',
      'r.tenant_id',
      'r.uuid',
      'r.status',
      'r.requester_id',
      'r.location_id',
      'r.department_id',
      'r.currency_id',
      'r.description',
      'r.total',
      'r.chain',
      'r.submitted_at',
      'r.created_at',
      'r.updated_at',
      'l.name as location_name',
      'd.name as department_name',
      'c.name as currency',
      sql<string | null>`to_char(r.needed_by, 'YYYY-MM-DD')`.as('needed_by'),
      sql<Person>`json_build_object('id', rp.id, 'first_name', rp.first_name, 'last_name', rp.last_name, 'email', ru.email)`.as(
        'requester',
      ),
      sql<LineRow[]>`coalesce((select json_agg(json_build_object('id', li.id, 'description', li.description,
        'vendor', li.vendor_id, 'quantity', li.quantity::text, 'unit_price', li.unit_price::text,
        'account', case when a.id is null then null else json_build_object('id', a.id, 'code', a.code, 'name', a.name) end)
        order by li.position)
        from request_lines li left join accounts a on a.tenant_id = li.tenant_id and a.id = li.account_id
        where li.tenant_id = r.tenant_id and li.request_id = r.id), '[]')`.as('lines'),
    ])
}
export type RequestRow = Awaited<ReturnType<ReturnType<typeof selectRequests>['executeTakeFirstOrThrow']>>

/** One page of the requests the caller may see (scope: their user id and locations; none for a superuser). */
/** Who sees a request: its requester, holders of the permissions at its location, its approvals' candidates. */
const visibility = documentScope('r', 'request', 'requester_id')
const requestVisible = visibility.visible

export const pageOfRequests = listSql(RequestListQuery, {
  select: selectRequests,
  tenant: 'r.tenant_id',
  id: 'r.id',
  order: { created_at: 'r.created_at', total: 'r.total' },
  search: ['r.description'],
  filters: {
    status: 'r.status',
    location: 'r.location_id',
    requester: 'rp.id',
    updated_since: visibility.updatedSince,
  },
  scope: visibility.scope,
})

export function findRequest(db: Kysely<DB>, tenantId: number, id: number, lock = false) {
  let q = selectRequests(db).where('r.tenant_id', '=', tenantId).where('r.id', '=', id)
  if (lock) q = q.forUpdate('r')
  return q.executeTakeFirst()
}

/** The requests among `ids` that `scope` (user id and locations; undefined: everything) lets the caller see. */
export function findRequests(db: Kysely<DB>, tenantId: number, ids: number[], scope?: readonly [number, number[]]) {
  if (ids.length === 0) return Promise.resolve([])
  let q = selectRequests(db).where('r.tenant_id', '=', tenantId).where('r.id', 'in', ids)
  if (scope !== undefined) q = q.where(requestVisible(scope[0], scope[1]))
  return q.execute()
}

/** Whether the user (with nav_approval/nav_purchase at `locations`) may see the request. */
export async function isVisible(db: Kysely<DB>, tenantId: number, id: number, user: number, locations: number[]) {
  const row = await db
    .selectFrom('purchase_requests as r')
    .select('r.id')
    .where('r.tenant_id', '=', tenantId)
    .where('r.id', '=', id)
    .where(requestVisible(user, locations))
    .executeTakeFirst()
  return row !== undefined
}

export interface RequestValues {
  location_id: number
  department_id: number | null
  currency_id: number
  description: string
  needed_by: string | null
  total: string
}

export async function insertRequest(db: Kysely<DB>, tenantId: number, requesterId: number, v: RequestValues) {
  const row = await db
    .insertInto('purchase_requests')
    .values({ tenant_id: tenantId, requester_id: requesterId, ...v })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function updateRequest(db: Kysely<DB>, tenantId: number, id: number, v: Partial<RequestValues>) {
  await db
    .updateTable('purchase_requests')
    .set({ ...v, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

export async function replaceLines(
  db: Kysely<DB>,
  tenantId: number,
  requestId: number,
  lines: {
    description: string
    vendor: number | null
    quantity: string
    unit_price: string
    account?: number | null
  }[],
) {
  await db.deleteFrom('request_lines').where('tenant_id', '=', tenantId).where('request_id', '=', requestId).execute()
  await db
    .insertInto('request_lines')
    .values(
      lines.map((l, i) => ({
        tenant_id: tenantId,
        request_id: requestId,
        position: i + 1,
        description: l.description,
        vendor_id: l.vendor,
        quantity: l.quantity,
        unit_price: l.unit_price,
        account_id: l.account ?? null,
      })),
    )
    .execute()
}

export async function setStatus(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  status: RequestStatus,
  extra: { submitted?: boolean; chain?: PlannedStep[] } = {},
) {
  await db
    .updateTable('purchase_requests')
    .set({
      status,
      updated_at: new Date(),
      ...(extra.submitted ? { submitted_at: new Date() } : {}),
      ...(extra.chain === undefined ? {} : { chain: JSON.stringify(extra.chain) }),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

/** What a request may refer to: the location's currency and departments, the named currency, the vendors. */
export async function references(
  db: Kysely<DB>,
  tenantId: number,
  locationId: number,
  currency: string | undefined,
  vendorIds: number[],
) {
  const [location, departments, currencyRow, vendors] = await Promise.all([
    db
      .selectFrom('locations')
      .select(['id', 'currency_id'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', locationId)
      .executeTakeFirst(),
    db
      .selectFrom('departments')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('location_id', '=', locationId)
      .execute(),
    currency === undefined
      ? undefined
      : db
          .selectFrom('currencies')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('name', '=', currency)
          .executeTakeFirst(),
    vendorIds.length === 0
      ? []
      : db.selectFrom('vendors').select('id').where('tenant_id', '=', tenantId).where('id', 'in', vendorIds).execute(),
  ])
  return {
    location,
    departments: new Set(departments.map((d) => d.id)),
    currencyId: currencyRow?.id,
    vendors: new Set(vendors.map((v) => v.id)),
  }
}

/** Locks the request row (decisions and cancellations of one request take turns); false when there is none. */
export async function lockRequest(db: Kysely<DB>, tenantId: number, id: number) {
  const row = await db
    .selectFrom('purchase_requests')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
  return row !== undefined
}

/** How messages name the request: its description, total, currency, location and requester. */
export const mailFacts = (db: Kysely<DB>, tenantId: number, requestId: number) =>
  db
    .selectFrom('purchase_requests as r')
    .innerJoin('currencies as c', byTenant('c', 'r.currency_id'))
    .innerJoin('locations as l', byTenant('l', 'r.location_id'))
    .innerJoin('users as u', byTenant('u', 'r.requester_id'))
    .select([
      'r.id',
      'r.description',
      'r.total',
      'c.name as currency',
      'l.name as location',
      'u.email as requester_email',
      'u.approval_emails as requester_wants',
      'u.is_active as requester_active',
    ])
    .where('r.tenant_id', '=', tenantId)
    .where('r.id', '=', requestId)
    .executeTakeFirstOrThrow()
