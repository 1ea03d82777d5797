/**
 * The demo's payments, made through the services as the people would (no table writes), after the bills: the
 * company's operating account; Keystone Printing's bank details, entered by the administrator and verified by
 * Rita (accounts payable at the Head Office, demo.ts: four eyes); Rita's payment request for a deposit to
 * Keystone, approved at once (no `payment_request` rule) and ready to pay from the Payments page; and a payment
 * run of Keystone's approved toner bill (INV-77120) that Rita submitted, waiting for the administrator or the
 * manager (a `payment_run` rule).
 */
import type { Kysely } from 'kysely'
import { operatorActor, type Actor } from '../access/actor.ts'
import { createRule } from '../approvals/rules.service.ts'
import { createCompanyAccount } from '../bank-accounts/company.service.ts'
import { putVendorAccount, verifyVendorAccount } from '../bank-accounts/vendor.service.ts'
import { listBills } from '../bills/service.ts'
import { PERMISSION_KEYS, type DB } from '../db/schema.ts'
import { submitPaymentRequest } from '../payment-requests/lifecycle.service.ts'
import { createPaymentRequest } from '../payment-requests/service.ts'
import { submitRun } from '../payment-runs/lifecycle.service.ts'
import { createRun } from '../payment-runs/service.ts'
import type { DemoPeople } from './demo-requests.ts'

/** The bill the demo's run pays: the matched toner bill of the partly received order (demo-bills.ts). */
const RUN_BILL = 'INV-77120'

export async function seedPayments(tx: Kysely<DB>, p: DemoPeople): Promise<void> {
  const operator = operatorActor({ id: p.tenantId, domain: p.domain })
  const admin: Actor = {
    ...operator,
    userId: p.admin.userId,
    email: p.admin.email,
    permissions: new Set(PERMISSION_KEYS),
  }
  const rita: Actor = {
    ...operator,
    userId: p.requester.userId,
    email: p.requester.email,
    permissions: new Set(['nav_request', 'accounts_payable']),
  }
  const [headOffice] = p.locations as [number]
  const keystone = p.vendors[10]!

  const account = await createCompanyAccount(tx, admin, {
    name: 'Operating account',
    account_holder: 'Demo Company',
    iban: 'DE02 1203 0000 0000 2020 51',
    bic: 'BYLADEM1001',
    currency: 'USD',
  })
  await putVendorAccount(tx, admin, keystone, {
    account_holder: 'Keystone Printing LLC',
    iban: 'GB29 NWBK 6016 1331 9268 19',
    bic: 'NWBKGB2LXXX',
  })
  await verifyVendorAccount(tx, rita, keystone)

  const deposit = await createPaymentRequest(tx, rita, {
    location: headOffice,
    vendor: keystone,
    amount: '750',
    due_date: '2026-12-15',
    invoice_number: 'KP-DEP-4471',
    reason: 'Deposit for the printed product catalogue (half up front, as agreed)',
  })
  await submitPaymentRequest(tx, rita, deposit.id)

  await createRule(tx, operator, {
    document: 'payment_run',
    step: 1,
    approvers: [p.admin.profileId, p.manager.profileId],
  })
  const bills = await listBills(tx, admin, { page: 1, page_size: 10, vendor: keystone, order_by: 'id' })
  const bill = bills.rows.find((b) => b.number === RUN_BILL && b.status === 'approved')
  if (bill === undefined) throw new Error(`the demo's payment run pays bill ${RUN_BILL}, which is not approved`)
  const run = await createRun(tx, rita, {
    bank_account: account.id,
    execution_date: '2026-12-18',
    items: [{ document: { type: 'bill', id: bill.id } }],
  })
  await submitRun(tx, rita, run.id)
}
