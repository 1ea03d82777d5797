/**
 * What the payment tests share (test/payments*.test.ts): the orders tenant (helpers/orders.ts) with two
 * accounts-payable clerks at A, a company bank account in A's currency, vendors with verified bank accounts,
 * and shortcuts for approved bills, payment requests and runs.
 */
import assert from 'node:assert/strict'
import type { TestContext } from './helpers/app.ts'
import { newVendor, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import type { Person } from './helpers/requests.ts'
import { roleWith, type Api } from './helpers/security.ts'

export interface PaymentSetup extends OrderSetup {
  clerk: Person
  clerk2: Person
  payablesRole: number
  currency: string
  bankAccount: number
  /** A new vendor with a verified IBAN account (changed by clerk, verified by clerk2). */
  payee(name?: string): Promise<number>
}

export const IBANS = [
  'DE89370400440532013000',
  'GB29NWBK60161331926819',
  'FR1420041010050500013M02606',
  'NL91ABNA0417164300',
]
let vendors = 0
let invoices = 0

export async function setUpPayments(ctx: TestContext): Promise<PaymentSetup> {
  const s = await setUpOrders(ctx)
  const payablesRole = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  const clerk = await s.user('clerk', payablesRole, s.A)
  const clerk2 = await s.user('clerk2', payablesRole, s.A)
  const location = (await s.admin({ method: 'GET', url: `/api/v2/locations/${s.A}/` })).json().data
  const currency = typeof location.currency === 'string' ? location.currency : location.currency.name
  const account = await s.admin({
    method: 'POST',
    url: '/api/v3/bank-accounts/',
    payload: {
      name: 'Operating account',
      account_holder: 'Example Corp',
      iban: 'DE02 1203 0000 0000 2020 51',
      bic: 'BYLADEM1001',
      currency,
    },
  })
  assert.equal(account.statusCode, 201, account.body)
  const setup: PaymentSetup = {
    ...s,
    clerk,
    clerk2,
    payablesRole,
    currency,
    bankAccount: account.json().data.id,
    async payee(name = `Payee ${++vendors}`) {
      const vendor = await newVendor(s.admin, name, [])
      await putAccount(clerk.api, vendor, {
        account_holder: `${name} Ltd`,
        iban: IBANS[vendors % IBANS.length],
        bic: 'COBADEFFXXX',
      })
      const verified = await clerk2.api({ method: 'POST', url: `/api/v3/vendors/${vendor}/bank-account/verify/` })
      assert.equal(verified.statusCode, 200, verified.body)
      return vendor
    },
  }
  return setup
}

export async function putAccount(api: Api, vendor: number, payload: object) {
  const r = await api({ method: 'PUT', url: `/api/v3/vendors/${vendor}/bank-account/`, payload })
  assert.equal(r.statusCode, 200, r.body)
  return r.json().data
}

export const post = (api: Api, url: string, payload?: object) =>
  api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) })

/** An approved bill (no bill rule) of `amount` from `vendor` at `location` (default A), entered by the clerk. */
export async function approvedBill(s: PaymentSetup, vendor: number, amount: string, location = s.A, api = s.clerk.api) {
  const made = await post(api, '/api/v3/bills/', {
    number: `INV-${++invoices}`,
    vendor,
    location,
    lines: [{ description: 'Services', quantity: '1', unit_price: amount }],
  })
  assert.equal(made.statusCode, 201, made.body)
  const submitted = await post(api, `/api/v3/bills/${made.json().data.id}/submit/`)
  assert.equal(submitted.statusCode, 200, submitted.body)
  assert.equal(submitted.json().data.status, 'approved')
  return submitted.json().data as { id: number; number: string; total: string; currency: string }
}

export const billItem = (id: number, amount?: string) => ({
  document: { type: 'bill', id },
  ...(amount === undefined ? {} : { amount }),
})

export const newRun = (s: PaymentSetup, items: object[], api = s.clerk.api, extra: object = {}) =>
  post(api, '/api/v3/payment-runs/', { bank_account: s.bankAccount, execution_date: '2026-12-01', items, ...extra })

export async function run(s: PaymentSetup, items: object[], api = s.clerk.api) {
  const r = await newRun(s, items, api)
  assert.equal(r.statusCode, 201, r.body)
  return r.json().data
}

export async function runAction(api: Api, id: number, action: string, payload?: object, status = 200) {
  const r = await post(api, `/api/v3/payment-runs/${id}/${action}/`, payload)
  assert.equal(r.statusCode, status, r.body)
  return r.json().data
}

export const events = async (s: PaymentSetup, prefix: string) =>
  (await s.admin({ method: 'GET', url: `/api/v3/events/?page_size=1000&type=${prefix}` })).json().data as {
    type: string
    data: { object: Record<string, unknown> }
  }[]
