/** Vendor rules and the row → API mapping. */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { type Page } from '../core/list-query.ts'
import type { DB, NewVendor, VendorUpdate } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { notFound, Problem, validationFailed } from '../core/problem.ts'
import { recordEvent, recordEvents } from '../events/service.ts'
import type { LookupCache, Lookups } from '../lookups/cache.ts'
import { missingLookups } from '../lookups/service.ts'
import * as repo from './repository.ts'
import type { Vendor, VendorInput, VendorListQuery, VendorPatch } from './schema.ts'

/** Which column each reference field reads and writes, and the look-up table it names. */
const REF_FIELDS = {
  payment_term_ref: ['payment_term_id', 'payment_terms'],
  shipping_term_ref: ['shipping_term_id', 'shipping_terms'],
  payment_method_ref: ['payment_method_id', 'payment_methods'],
  shipping_method_ref: ['shipping_method_id', 'shipping_methods'],
} as const
const REFS = Object.values(REF_FIELDS)

/** A row as the API shows it, its references resolved by `lookups` (see `withLookups`). */
export function toVendor(row: repo.VendorRow, lookups: Lookups): Vendor {
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
    payment_term_ref: lookups('payment_terms', row.payment_term_id),
    shipping_term_ref: lookups('shipping_terms', row.shipping_term_id),
    payment_method_ref: lookups('payment_methods', row.payment_method_id),
    shipping_method_ref: lookups('shipping_methods', row.shipping_method_id),
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

/** The rows as the API shows them, every look-up they reference read at once (most from memory). */
export async function withLookups(
  db: Kysely<DB>,
  lookups: LookupCache,
  tenantId: number,
  rows: readonly repo.VendorRow[],
): Promise<Vendor[]> {
  const resolved = await lookups.resolve(
    db,
    tenantId,
    rows.flatMap((row) => REFS.map(([column, table]) => [table, row[column]] as const)),
  )
  return rows.map((row) => toVendor(row, resolved))
}

export async function listVendors(
  db: Kysely<DB>,
  lookups: LookupCache,
  actor: Actor,
  query: VendorListQuery,
): Promise<Page<Vendor>> {
  const result = await repo.pageOfVendors(db, actor.tenantId, query)
  return { ...result, rows: await withLookups(db, lookups, actor.tenantId, result.rows) }
}

const refId = (value: number | { id: number } | null | undefined) =>
  value === null || value === undefined ? null : typeof value === 'number' ? value : value.id

/** Column values for the fields present in `input`; with `complete`, the defaults for the ones left out. */
function toColumns(input: VendorPatch, complete: boolean): VendorUpdate {
  const pick = <T>(value: T | undefined, fallback: T): T | undefined =>
    value !== undefined ? value : complete ? fallback : undefined
  const columns: VendorUpdate = {
    name: input.name,
    active: pick(input.active, true),
    type: pick(input.type, 3),
    address_line_one: pick(input.addressLineOne, ''),
    address_line_two: pick(input.addressLineTwo, ''),
    postal_code: pick(input.postalCode, ''),
    city: pick(input.city, ''),
    state_province: pick(input.state_province, ''),
    country: pick(input.country, ''),
    phone_one: pick(input.phoneOne, ''),
    phone_two: pick(input.phoneTwo, ''),
    fax: pick(input.fax, ''),
    emails: pick(input.email, []),
    comments: pick(input.comments, ''),
    contact: pick(input.contact, ''),
    url: pick(input.url, ''),
    external_id: pick(input.external_id, ''),
    currency_id: pick(input.currency, null),
    tax: pick(input.tax, null),
    default_payment_method: pick(input.default_payment_method, null),
    is_1099_eligible: pick(input.is_1099_eligible, null),
    overall_score: pick(input.overall_score, null),
    is_auto_email_po_enabled: pick(input.is_auto_email_po_enabled, false),
    po_pdf_labels: pick(input.po_pdf_labels, ''),
    email_configurations: pick(
      input.email_configurations === undefined ? undefined : JSON.stringify(input.email_configurations),
      '{}',
    ),
  }
  for (const [field, [column]] of Object.entries(REF_FIELDS)) {
    const value = input[field as keyof typeof REF_FIELDS]
    if (value !== undefined || complete) columns[column] = refId(value)
  }
  return Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined))
}

/** 400 naming every referenced currency, term or method that is not the tenant's. */
async function checkReferences(db: Kysely<DB>, tenantId: number, input: VendorPatch): Promise<void> {
  const refs: Parameters<typeof missingLookups>[2] = []
  if (typeof input.currency === 'number') refs.push({ field: 'currency', table: 'currencies', id: input.currency })
  for (const [field, [, table]] of Object.entries(REF_FIELDS)) {
    const id = refId(input[field as keyof typeof REF_FIELDS])
    if (id !== null) refs.push({ field, table, id })
  }
  const missing = await missingLookups(db, tenantId, refs)
  if (missing.length > 0)
    throw validationFailed(Object.fromEntries(missing.map((field) => [field, ['does not exist']])))
}

const WRITERS = ['superuser', 'nav_purchase'] as const

export async function getVendor(db: Kysely<DB>, lookups: LookupCache, actor: Actor, id: number): Promise<Vendor> {
  const row = await repo.findVendor(db, actor.tenantId, id)
  if (row === undefined) throw notFound(`No vendor ${id}.`)
  return (await withLookups(db, lookups, actor.tenantId, [row]))[0]!
}

export async function createVendor(
  db: Kysely<DB>,
  lookups: LookupCache,
  actor: Actor,
  input: VendorInput,
): Promise<Vendor> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    await checkReferences(tx, actor.tenantId, input)
    return (await writeVendors(tx, lookups, actor, [input]))[0]!
  })
}

/** Writes checked vendors: one insert, their audit entries and their `vendor.created` events, in input order. */
async function writeVendors(
  tx: Kysely<DB>,
  lookups: LookupCache,
  actor: Actor,
  inputs: readonly VendorInput[],
): Promise<Vendor[]> {
  const rows = await repo.insertVendors(
    tx,
    inputs.map((input) => ({ ...(toColumns(input, true) as NewVendor), tenant_id: actor.tenantId })),
  )
  await audit(
    tx,
    actor,
    ...rows.map((row, i) => ({
      action: 'vendor.create',
      resourceType: 'vendor',
      resourceId: row.id,
      changes: inputs[i]!,
    })),
  )
  const vendors = await withLookups(tx, lookups, actor.tenantId, rows)
  await recordEvents(tx, actor.tenantId, 'vendor.created', vendors)
  return vendors
}

/**
 * Several vendors at once (an import), all or none, in one transaction: each checked as `createVendor` checks
 * one, then written together (one insert, one audit append, one batch of events: what `createVendor` writes
 * for each, in the same order). A refused one undoes the lot: the 400 carries one entry of field errors per
 * input, in order, the refused one's filled in.
 */
export async function createVendors(
  db: Kysely<DB>,
  lookups: LookupCache,
  actor: Actor,
  inputs: readonly VendorInput[],
): Promise<Vendor[]> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    for (const [at, input] of inputs.entries()) {
      try {
        await checkReferences(tx, actor.tenantId, input)
      } catch (error) {
        if (!(error instanceof Problem) || error.status !== 400) throw error
        const errors = inputs.map((_, i) => (i === at ? ([error.extra.errors ?? []].flat()[0] ?? {}) : {}))
        throw validationFailed(errors, `Vendor ${at + 1} of ${inputs.length} was refused; nothing was imported.`)
      }
    }
    return writeVendors(tx, lookups, actor, inputs)
  })
}

/** PUT replaces every field (omitted ones take defaults); PATCH changes only the fields sent. */
export async function updateVendor(
  db: Kysely<DB>,
  lookups: LookupCache,
  actor: Actor,
  id: number,
  input: VendorPatch,
  complete: boolean,
): Promise<Vendor> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    if ((await repo.findVendor(tx, actor.tenantId, id)) === undefined) throw notFound(`No vendor ${id}.`)
    await checkReferences(tx, actor.tenantId, input)
    const row = await repo.updateVendor(tx, actor.tenantId, id, toColumns(input, complete))
    if (row === undefined) throw notFound(`No vendor ${id}.`)
    await audit(tx, actor, {
      action: complete ? 'vendor.replace' : 'vendor.update',
      resourceType: 'vendor',
      resourceId: id,
      changes: input,
    })
    const vendor = (await withLookups(tx, lookups, actor.tenantId, [row]))[0]!
    await recordEvent(tx, actor.tenantId, 'vendor.updated', vendor)
    return vendor
  })
}
