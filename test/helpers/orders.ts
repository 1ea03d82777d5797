/**
 * What the purchase order and receipt tests share: the request tests' tenant (helpers/requests.ts) with a
 * buyer (Buyer role: nav_purchase and nav_receive at A), an approver at A, vendors, and shortcuts for orders.
 */
import assert from 'node:assert/strict'
import type { TestContext } from './app.ts'
import { decide, draft, line, rule, setUp, submit, type Person, type Setup } from './requests.ts'
import type { Api } from './security.ts'

export interface OrderSetup extends Setup {
  buyer: Person
  approver: Person
  requester: Person
  vendor: number
  vendor2: number
}

export async function setUpOrders(ctx: TestContext): Promise<OrderSetup> {
  const s = await setUp(ctx)
  const buyer = await s.user('buyer', s.roles.Buyer, s.A)
  const approver = await s.user('approver', s.roles.Approver, s.A)
  const requester = await s.user('requester', s.roles.Requester, s.A)
  const vendor = await newVendor(s.admin, 'Acme Supplies', ['orders@acme.test'])
  const vendor2 = await newVendor(s.admin, 'Globex', [])
  return { ...s, buyer, approver, requester, vendor, vendor2 }
}

export async function newVendor(admin: Api, name: string, email: string[]) {
  const response = await admin({ method: 'POST', url: '/api/v3/vendors/', payload: { name, email } })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data.id as number
}

export const poLine = (quantity: string, unit_price: string, tax_rate = '0', description = 'Item') => ({
  description,
  quantity,
  unit_price,
  tax_rate,
})

/** Creates a draft order as `api`; asserts 201 and returns it. */
export async function newOrder(api: Api, body: object) {
  const response = await api({ method: 'POST', url: '/api/v3/purchase-orders/', payload: body })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data
}

export const act = (api: Api, id: number, action: string) =>
  api({ method: 'POST', url: `/api/v3/purchase-orders/${id}/${action}/` })

/** An issued order at A from `vendor` (no rule for purchase orders: issued at once); returns it. */
export async function issuedOrder(s: OrderSetup, lines = [poLine('10', '5')]) {
  const order = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines })
  const issued = await act(s.buyer.api, order.id, 'issue')
  assert.equal(issued.statusCode, 200, issued.body)
  assert.equal(issued.json().data.status, 'issued')
  return issued.json().data
}

/** An approved request at A (no request rule: approved at submit) with these lines. */
export async function approvedRequest(s: OrderSetup, lines: object[]) {
  const request = await draft(s.requester.api, s.A, lines as ReturnType<typeof line>[])
  const submitted = await submit(s.requester.api, request.id)
  assert.equal(submitted.statusCode, 200, submitted.body)
  assert.equal(submitted.json().data.status, 'approved')
  return submitted.json().data
}

export { decide, line, rule }
