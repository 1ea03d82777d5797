/** Vendor rules and the row → API mapping. */
import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { Caller } from '../http/auth.ts'
import { listEnvelope, pageRequest } from '../http/list.ts'
import * as repo from './repository.ts'
import type { Vendor, VendorListQuery } from './schema.ts'

export function toVendor(row: repo.VendorRow): Vendor {
  return {
    id: row.id,
    name: row.name,
    active: row.active,
    addressLineOne: row.address_line_one,
    addressLineTwo: row.address_line_two,
    postalCode: row.postal_code,
    city: row.city,
    state_province: row.state_province,
    country: row.country,
    phoneOne: row.phone_one,
    phoneTwo: row.phone_two,
    fax: row.fax,
    email: row.emails,
    comments: row.comments,
    contact: row.contact,
    url: row.url,
    external_id: row.external_id,
    dateModified: row.date_modified.toISOString(),
    currency: row.currency_id,
    payment_term_ref: row.payment_term_ref,
    shipping_term_ref: row.shipping_term_ref,
    payment_method_ref: row.payment_method_ref,
    shipping_method_ref: row.shipping_method_ref,
    tax: row.tax,
    type: row.type,
    default_payment_method: row.default_payment_method,
    is_1099_eligible: row.is_1099_eligible,
    overall_score: row.overall_score,
    is_auto_email_po_enabled: row.is_auto_email_po_enabled,
    po_pdf_labels: row.po_pdf_labels,
    email_configurations: row.email_configurations as Vendor['email_configurations'],
  }
}

export async function listVendors(db: Kysely<DB>, caller: Caller, query: VendorListQuery, request: FastifyRequest) {
  const page = pageRequest(query)
  const filters = { active: query.active, type: query.type, external_id: query.external_id, name: query.name, search: page.search }
  const count = await repo.countVendors(db, caller.tenantId, filters)
  const rows = count > page.offset ? await repo.listVendors(db, caller.tenantId, filters, page) : []
  return listEnvelope(request, page, count, rows.map(toVendor))
}
