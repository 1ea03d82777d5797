/** SQL that reads what an order refers to: vendors, the location and its departments, request lines. */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

/** The request lines among `ids` already on an order that is not cancelled (each is ordered once). */
export async function orderedRequestLines(db: Kysely<DB>, tenantId: number, ids: number[]) {
  if (ids.length === 0) return new Set<number>()
  const rows = await db
    .selectFrom('purchase_order_lines as li')
    .innerJoin('purchase_orders as po', (j) =>
      j.onRef('po.tenant_id', '=', 'li.tenant_id').onRef('po.id', '=', 'li.order_id'),
    )
    .select('li.request_line_id')
    .where('li.tenant_id', '=', tenantId)
    .where('li.request_line_id', 'in', ids)
    .where('po.status', '<>', 'cancelled')
    .execute()
  return new Set(rows.map((r) => r.request_line_id!))
}

/** What an order may refer to: the location (and its currency), its departments, the currency, the vendor. */
export async function references(
  db: Kysely<DB>,
  tenantId: number,
  ids: { location: number; vendor: number; department: number | null; currency: string | undefined },
) {
  const row = await sql<{
    location: number | null
    location_currency: number | null
    vendor: number | null
    vendor_active: boolean | null
    department: number | null
    currency: number | null
  }>`select
      (select id from locations where tenant_id = ${tenantId} and id = ${ids.location}) as location,
      (select currency_id from locations where tenant_id = ${tenantId} and id = ${ids.location}) as location_currency,
      (select id from vendors where tenant_id = ${tenantId} and id = ${ids.vendor}) as vendor,
      (select active from vendors where tenant_id = ${tenantId} and id = ${ids.vendor}) as vendor_active,
      (select id from departments where tenant_id = ${tenantId} and id = ${ids.department}
        and location_id = ${ids.location}) as department,
      (select id from currencies where tenant_id = ${tenantId} and name = ${ids.currency ?? ''}) as currency`.execute(
    db,
  )
  return row.rows[0]!
}

/** The vendor's e-mail addresses (for `send`). */
export async function vendorEmails(db: Kysely<DB>, tenantId: number, vendorId: number) {
  const row = await db
    .selectFrom('vendors')
    .select('emails')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', vendorId)
    .executeTakeFirst()
  return row?.emails ?? []
}

/** The active vendors among `ids`. */
export async function activeVendors(db: Kysely<DB>, tenantId: number, ids: number[]) {
  if (ids.length === 0) return new Set<number>()
  const rows = await db
    .selectFrom('vendors')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('active', '=', true)
    .execute()
  return new Set(rows.map((r) => r.id))
}

/**
 * Who an order's PDF names beside its own fields: the buyer (the location's legal entity, or the location when
 * it has none) and the vendor with its address and its payment and shipping terms.
 */
export async function orderParties(db: Kysely<DB>, tenantId: number, locationId: number, vendorId: number) {
  const [buyer, vendor] = await Promise.all([
    db
      .selectFrom('locations as l')
      .leftJoin('legal_entities as e', (j) =>
        j.onRef('e.tenant_id', '=', 'l.tenant_id').onRef('e.id', '=', 'l.legal_entity_id'),
      )
      .select(['l.name as location', 'e.name as legal_entity'])
      .where('l.tenant_id', '=', tenantId)
      .where('l.id', '=', locationId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('vendors as v')
      .leftJoin('payment_terms as pt', (j) =>
        j.onRef('pt.tenant_id', '=', 'v.tenant_id').onRef('pt.id', '=', 'v.payment_term_id'),
      )
      .leftJoin('shipping_terms as st', (j) =>
        j.onRef('st.tenant_id', '=', 'v.tenant_id').onRef('st.id', '=', 'v.shipping_term_id'),
      )
      .select([
        'v.name',
        'v.address_line_one as addressLineOne',
        'v.address_line_two as addressLineTwo',
        'v.postal_code as postalCode',
        'v.city',
        'v.state_province',
        'v.country',
        'pt.name as payment_terms',
        'st.name as shipping_terms',
      ])
      .where('v.tenant_id', '=', tenantId)
      .where('v.id', '=', vendorId)
      .executeTakeFirstOrThrow(),
  ])
  return { buyer: buyer.legal_entity ?? buyer.location, vendor }
}
export type OrderParties = Awaited<ReturnType<typeof orderParties>>
