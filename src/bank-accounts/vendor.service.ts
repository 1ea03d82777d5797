/**
 * A vendor's bank account (DECISIONS, "Payment requests and payment runs"): written and verified by holders of
 * accounts_payable at any location, or superuser. Every change makes it `unverified`, e-mails every
 * accounts-payable holder of the tenant (the outbox; SMTP when set), is audited and records
 * `vendor.bank_account_changed`; `verify` must come from someone other than the one who changed it (four eyes,
 * 409). Readers without accounts_payable see the IBAN and account number masked to their last four characters.
 * The vendor's row is locked for both, so a change and a verification never cross.
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { actorLocationAccess, locationsWithAny } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import { conflict, forbidden, notFound, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { queueMail } from '../mail/service.ts'
import * as repo from './repository.ts'
import type { VendorBankAccount, VendorBankAccountInput } from './schema.ts'
import { checkAccountNumber, checkBic, checkIban, ibanCountry, maskLastFour } from './validation.ts'

/** Whether the actor holds accounts_payable anywhere (or is a superuser, or the operator). */
export async function holdsPayables(db: Kysely<DB>, actor: Actor): Promise<boolean> {
  if (actor.permissions.has('superuser') || actor.permissions.has('accounts_payable')) return true
  const where = locationsWithAny(await actorLocationAccess(db, actor), 'accounts_payable')
  return where === 'all' || where.length > 0
}

async function requirePayables(db: Kysely<DB>, actor: Actor) {
  if (!(await holdsPayables(db, actor)))
    throw forbidden(
      'Changing or verifying a vendor’s bank account needs the accounts_payable permission (or superuser).',
    )
}

/** The vendors' accounts (unmasked), by vendor id: what a payment file is built from. */
export const vendorAccountsOf = (db: Kysely<DB>, tenantId: number, vendorIds: readonly number[]) =>
  repo.vendorAccounts(db, tenantId, vendorIds)

export function toVendorAccount(row: repo.VendorAccountRow, masked: boolean): VendorBankAccount {
  return {
    vendor: { id: row.vendor_id, name: row.vendor_name },
    account_holder: row.account_holder,
    iban: masked ? maskLastFour(row.iban) : row.iban,
    bic: row.bic,
    account_number: masked ? maskLastFour(row.account_number) : row.account_number,
    routing_number: row.routing_number,
    country: row.country,
    status: row.status,
    masked,
    changed_by: row.changed_by,
    changed_at: row.changed_at.toISOString(),
    verified_by: row.verified_by,
    verified_at: row.verified_at === null ? null : row.verified_at.toISOString(),
  }
}

async function vendorOr404(db: Kysely<DB>, tenantId: number, vendorId: number, lock = false) {
  const vendor = lock ? await repo.lockVendor(db, tenantId, vendorId) : await repo.findVendor(db, tenantId, vendorId)
  if (vendor === undefined) throw notFound(`No vendor ${vendorId}.`)
  return vendor
}

const noAccount = (vendor: { id: number; name: string }) =>
  notFound(`Vendor ${vendor.id} (${vendor.name}) has no bank account yet; accounts payable can enter it with PUT.`)

export async function getVendorAccount(db: Kysely<DB>, actor: Actor, vendorId: number): Promise<VendorBankAccount> {
  const vendor = await vendorOr404(db, actor.tenantId, vendorId)
  const row = await repo.findVendorAccount(db, actor.tenantId, vendorId)
  if (row === undefined) throw noAccount(vendor)
  return toVendorAccount(row, !(await holdsPayables(db, actor)))
}

/** The columns the body says, checked: 400 naming each field that is wrong. */
export function accountValues(input: VendorBankAccountInput): repo.VendorAccountValues {
  const errors: FieldErrors = {}
  const field = (name: string, text: string | null | undefined, check: typeof checkIban) => {
    if (text === null || text === undefined || text.trim() === '') return null
    const result = check(text)
    if ('error' in result) {
      errors[name] = [result.error]
      return null
    }
    return result.value
  }
  const iban = field('iban', input.iban, checkIban)
  const bic = field('bic', input.bic, checkBic)
  const accountNumber = field('account_number', input.account_number, checkAccountNumber)
  const routingNumber = field('routing_number', input.routing_number, checkAccountNumber)
  let country = (input.country ?? '').trim().toUpperCase()
  if (country !== '' && !/^[A-Z]{2}$/.test(country))
    errors.country = ['must be a two-letter country code (ISO 3166), like DE or US']
  if (iban !== null) {
    const of = ibanCountry(iban)
    if (country === '') country = of
    else if (country !== of && errors.country === undefined)
      errors.country = [`must be ${of}, the IBAN’s country, or be left out`]
  }
  if (errors.iban === undefined && errors.account_number === undefined && iban === null && accountNumber === null)
    errors.iban = ['is required, or an account_number (with a routing_number where the bank needs one)']
  if (iban !== null && accountNumber !== null)
    errors.account_number = ['must be left out when an IBAN is given (the IBAN already names the account)']
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return {
    account_holder: input.account_holder.trim(),
    iban,
    bic,
    account_number: accountNumber,
    routing_number: routingNumber,
    country,
  }
}

const same = (row: repo.VendorAccountRow, v: repo.VendorAccountValues) =>
  row.account_holder === v.account_holder &&
  row.iban === v.iban &&
  row.bic === v.bic &&
  row.account_number === v.account_number &&
  row.routing_number === v.routing_number &&
  row.country === v.country

/** The alert every accounts-payable holder gets: who changed which vendor's account, and what to do. */
function alert(vendor: { id: number; name: string }, actor: Actor, account: VendorBankAccount) {
  const who = `${account.changed_by.first_name} ${account.changed_by.last_name}`.trim() || account.changed_by.email
  const where = account.iban ?? account.account_number ?? ''
  return {
    subject: `Bank account of ${vendor.name} changed — verify it before paying`,
    text:
      `${who} (${actor.email ?? 'the operator'}) changed the bank account of vendor ${vendor.name} (vendor ` +
      `${vendor.id}) at ${account.changed_at}. The account now ends in ${where.slice(-4)}.\n\n` +
      'It is unverified: no payment run can pay this vendor until someone other than the person who changed it ' +
      'confirms the new details with the vendor by a channel you already trust (not the e-mail or letter that ' +
      'asked for the change) and verifies it. If nobody at your company made this change, tell your security ' +
      'contact at once.\n',
  }
}

export async function putVendorAccount(
  db: Kysely<DB>,
  actor: Actor,
  vendorId: number,
  input: VendorBankAccountInput,
): Promise<VendorBankAccount> {
  const userId = actingUser(actor)
  await requirePayables(db, actor)
  await vendorOr404(db, actor.tenantId, vendorId)
  const values = accountValues(input)
  return inTransaction(db, async (tx) => {
    const vendor = await vendorOr404(tx, actor.tenantId, vendorId, true)
    const before = await repo.findVendorAccount(tx, actor.tenantId, vendorId)
    if (before !== undefined && same(before, values)) return toVendorAccount(before, false)
    await repo.writeVendorAccount(tx, actor.tenantId, vendorId, values, userId)
    const account = toVendorAccount((await repo.findVendorAccount(tx, actor.tenantId, vendorId))!, false)
    await audit(tx, actor, {
      action: 'vendor.bank_account_change',
      resourceType: 'vendor',
      resourceId: vendorId,
      changes: { bank_account: values },
    })
    await recordEvent(tx, actor.tenantId, 'vendor.bank_account_changed', account)
    await queueMail(
      tx,
      actor.tenantId,
      await repo.holderEmails(tx, actor.tenantId, 'accounts_payable'),
      alert(vendor, actor, account),
    )
    return account
  })
}

export async function verifyVendorAccount(db: Kysely<DB>, actor: Actor, vendorId: number): Promise<VendorBankAccount> {
  const userId = actingUser(actor)
  await requirePayables(db, actor)
  await vendorOr404(db, actor.tenantId, vendorId)
  return inTransaction(db, async (tx) => {
    const vendor = await vendorOr404(tx, actor.tenantId, vendorId, true)
    const row = await repo.findVendorAccount(tx, actor.tenantId, vendorId)
    if (row === undefined) throw noAccount(vendor)
    if (row.status === 'verified')
      throw conflict(`The bank account of vendor ${vendor.name} is already verified; nothing to do.`)
    if (row.changed_by_id === userId)
      throw conflict(
        `You changed the bank account of vendor ${vendor.name}, so someone else with accounts_payable must verify ` +
          'it (four eyes): ask a colleague to confirm the details with the vendor and verify it.',
      )
    await repo.verifyVendorAccount(tx, actor.tenantId, vendorId, userId)
    const account = toVendorAccount((await repo.findVendorAccount(tx, actor.tenantId, vendorId))!, false)
    await audit(tx, actor, { action: 'vendor.bank_account_verify', resourceType: 'vendor', resourceId: vendorId })
    await recordEvent(tx, actor.tenantId, 'vendor.bank_account_verified', account)
    return account
  })
}
