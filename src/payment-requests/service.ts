/**
 * Payment requests (DECISIONS, "Payment requests and payment runs"): paying a vendor without an order (a deposit,
 * a fee). List, read, make and edit while `draft`. Making or editing one needs `nav_request` at its location (at
 * both locations when it moves); reads are scoped as `paymentRequestScope` says (others 404).
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { requireAnyAt, type LocationAccess } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import { requireStatus } from '../core/lifecycle.ts'
import type { Page } from '../core/list-query.ts'
import { forbidden, validationFailed, type FieldErrors } from '../core/problem.ts'
import { nextNumber } from '../db/numbering.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { instantFault } from '../core/instant.ts'
import * as repo from './repository.ts'
import type { PaymentRequest, PaymentRequestInput, PaymentRequestListQuery } from './schema.ts'
import {
  accessOf,
  paymentRequestScope,
  paymentRequestView,
  toPaymentRequests,
  visiblePaymentRequest,
} from './view.service.ts'

export async function listPaymentRequests(
  db: Kysely<DB>,
  actor: Actor,
  query: PaymentRequestListQuery,
): Promise<Page<PaymentRequest>> {
  const scope = paymentRequestScope(actor, await accessOf(db, actor))
  const page = await repo.pageOfPaymentRequests(db, actor.tenantId, query, scope)
  return { ...page, rows: await toPaymentRequests(db, actor.tenantId, page.rows) }
}

export async function getPaymentRequest(db: Kysely<DB>, actor: Actor, id: number): Promise<PaymentRequest> {
  const row = await visiblePaymentRequest(db, actor, await accessOf(db, actor), id)
  return (await toPaymentRequests(db, actor.tenantId, [row]))[0]!
}

const idOf = (ref: number | { id: number }) => (typeof ref === 'number' ? ref : ref.id)
const idOrNull = (ref: number | { id: number } | null | undefined) =>
  ref === null || ref === undefined ? null : idOf(ref)
const TWO_DECIMALS = /^\d{1,16}(\.\d{1,2})?$/

/** The columns the body says, checked against the tenant: 400 naming each field that is wrong. */
async function valuesOf(
  db: Kysely<DB>,
  actor: Actor,
  access: LocationAccess,
  input: PaymentRequestInput,
): Promise<repo.PaymentRequestValues> {
  const location = idOf(input.location)
  const department = idOrNull(input.department)
  const account = idOrNull(input.account)
  const currencyName = typeof input.currency === 'object' ? input.currency.name : input.currency
  const refs = await repo.references(db, actor.tenantId, {
    location,
    department,
    vendor: idOf(input.vendor),
    currency: currencyName,
    account,
  })
  const errors: FieldErrors = {}
  if (refs.location === null) errors.location = [`no location ${location}`]
  if (refs.vendor === null) errors.vendor = [`no vendor ${idOf(input.vendor)}`]
  if (department !== null && refs.department_location !== location)
    errors.department = [`must be a department of location ${location}; department ${department} is not`]
  if (account !== null && refs.account === null) errors.account = [`no account ${account}`]
  if (currencyName !== undefined && refs.currency === null)
    errors.currency = [
      `must be one of the tenant’s currencies (GET /api/v2/currencies/); ${JSON.stringify(currencyName)} is not`,
    ]
  if (!TWO_DECIMALS.test(input.amount)) errors.amount = ['must be a decimal number like 1500.00 (up to 2 decimals)']
  else if (/^[0.]+$/.test(input.amount)) errors.amount = ['must be greater than 0']
  if (typeof input.due_date === 'string' && instantFault(`${input.due_date}T12:00:00Z`) !== undefined)
    errors.due_date = ['must be a date within the years 0001 to 9999']
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  requireAnyAt(access, location, 'nav_request')
  return {
    location_id: location,
    department_id: department,
    vendor_id: refs.vendor!,
    currency_id: refs.currency ?? refs.location_currency!,
    amount: input.amount,
    account_id: account,
    due_date: input.due_date ?? null,
    invoice_number: (input.invoice_number ?? '').trim(),
    reason: input.reason ?? '',
  }
}

export async function createPaymentRequest(
  db: Kysely<DB>,
  actor: Actor,
  input: PaymentRequestInput,
): Promise<PaymentRequest> {
  const userId = actingUser(actor)
  const values = await valuesOf(db, actor, await accessOf(db, actor), input)
  return inTransaction(db, async (tx) => {
    const number = await nextNumber(tx, actor.tenantId, 'payment_request')
    const id = await repo.insertPaymentRequest(tx, actor.tenantId, number, values, userId)
    await audit(tx, actor, {
      action: 'payment_request.create',
      resourceType: 'payment_request',
      resourceId: id,
      changes: input,
    })
    const request = await paymentRequestView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'payment_request.created', request)
    return request
  })
}

/** Only its requester (or a superuser) edits or cancels a payment request. */
export function requireOwner(actor: Actor, row: repo.PaymentRequestRow, action: string) {
  if (row.requester_id !== actor.userId && !actor.permissions.has('superuser'))
    throw forbidden(`Only the requester of payment request ${row.number} (or a superuser) can ${action} it.`)
}

/**
 * Replaces a draft. Moving it to another location needs nav_request where it leaves and where it enters (403 at
 * either, nothing changes), judged again on the locked row.
 */
export async function putPaymentRequest(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: PaymentRequestInput,
): Promise<PaymentRequest> {
  const access = await accessOf(db, actor)
  const seen = await visiblePaymentRequest(db, actor, access, id)
  requireAnyAt(access, seen.location_id, 'nav_request')
  const values = await valuesOf(db, actor, access, input)
  return inTransaction(db, async (tx) => {
    const row = await visiblePaymentRequest(tx, actor, access, id, true)
    requireAnyAt(access, row.location_id, 'nav_request')
    requireOwner(actor, row, 'edit')
    requireStatus(
      { subject: `Payment request ${row.number}`, noun: 'payment request' },
      row.status,
      ['draft'],
      'edited',
    )
    await repo.updatePaymentRequest(tx, actor.tenantId, id, values)
    await audit(tx, actor, {
      action: 'payment_request.update',
      resourceType: 'payment_request',
      resourceId: id,
      changes: input,
    })
    return paymentRequestView(tx, actor.tenantId, id)
  })
}
