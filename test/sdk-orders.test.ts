/**
 * The SDK's order methods against the listening server: a draft, issue, revision with a version, a receipt,
 * and the order's PDF as bytes.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ProblemError, ProcurementClient } from '../sdk/src/index.ts'
import { clientFor, sampleTenant, TEST_AUDIENCE, useTestApp } from './helpers/app.ts'

const ctx = useTestApp({ RATE_LIMIT_PER_MINUTE: '0' })

test('orders and receipts through the SDK', async () => {
  const base = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  const tenant = await sampleTenant(ctx)
  const creds = await clientFor(ctx, tenant)
  const client = new ProcurementClient({
    baseUrl: base,
    clientId: creds.client_id,
    clientSecret: creds.client_secret,
    audience: TEST_AUDIENCE,
  })
  const location = (await client.locations.list()).data[0]!.id
  const vendor = await client.vendors.create({ name: 'SDK Supplies' })
  const draft = await client.purchaseOrders.create({
    vendor: vendor.id,
    location,
    lines: [{ description: 'Widget', quantity: '4', unit_price: '2.5', tax_rate: '10' }],
  })
  assert.equal(draft.total, '11.00')
  const issued = await client.purchaseOrders.issue(draft.id)
  assert.equal(issued.status, 'issued')
  const line = issued.lines[0]!
  await assert.rejects(
    client.purchaseOrders.replace(issued.id, {
      vendor: vendor.id,
      location,
      lines: [{ id: line.id, quantity: '5', unit_price: '2.5' }],
    }),
    (error: unknown) => error instanceof ProblemError && error.status === 428,
  )
  const revised = await client.purchaseOrders.replace(
    issued.id,
    { vendor: vendor.id, location, lines: [{ id: line.id, quantity: '5', unit_price: '2.5', tax_rate: '10' }] },
    issued.version,
  )
  assert.equal(revised.version, 2)
  const revisions = await client.purchaseOrders.revisions(issued.id)
  assert.equal(revisions.data.length, 1)
  assert.equal(revisions.pagination.count, 1)
  const receipt = await client.receipts.create({
    purchase_order: issued.id,
    lines: [{ po_line: line.id, accepted_quantity: '5' }],
  })
  assert.equal(receipt.type, 'receipt')
  assert.equal((await client.purchaseOrders.get(issued.id)).receipt_status, 'full')
  const page = await client.purchaseOrders.list({ status: 'issued' })
  assert.ok(page.data.some((o) => o.id === issued.id))

  const pdf = await client.purchaseOrders.pdf(issued.id)
  assert.equal(pdf.contentType, 'application/pdf')
  assert.ok(pdf.bytes instanceof Uint8Array)
  assert.equal(new TextDecoder().decode(pdf.bytes.subarray(0, 5)), '%PDF-')
  assert.ok(pdf.bytes.length > 500, `a whole document, not ${pdf.bytes.length} bytes`)
  // An order that is not there: the API's problem, thrown as for every other call.
  await assert.rejects(
    client.purchaseOrders.pdf(2_000_000_000),
    (error: unknown) => error instanceof ProblemError && error.status === 404,
  )
})
