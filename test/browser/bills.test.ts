/**
 * Bills in a real browser (Debian's Chromium driven by playwright-core) against the real `procurement serve` on
 * an embedded database: an accounts-payable clerk enters a bill from an order (its lines pre-filled with what
 * was received), bills more than was received and submits it; the exception shows beside its line; the
 * administrator approves it from the approvals inbox and pays it with a reference; the bills list shows it
 * paid. axe-core finds no serious or critical violation on any page; at 390 px nothing scrolls sideways.
 * Screenshots for docs/bills.md: UPDATE_SCREENSHOTS=1 node --import tsx --test test/browser/bills.test.ts
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { accessible, fitsPhone, noChromium, shotPath } from '../helpers/browser.ts'
import { lastJson, useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ domain: 'bills' })

/** axe-core, and at 390 px no sideways scroll (a full-page screenshot when `shot` is named). */
async function checked(context: BrowserContext, page: Page, shot?: string) {
  await accessible(context, page.url())
  const width = page.viewportSize()!.width
  await page.setViewportSize({ width: 390, height: 844 })
  await fitsPhone(page)
  if (shot !== undefined) await page.screenshot({ path: shotPath(shot), fullPage: true })
  await page.setViewportSize({ width, height: 900 })
}

test(
  'enter a bill from an order, submit it, see the exception, approve it from the inbox, pay it',
  { skip, timeout: 300_000 },
  async () => {
    // Set up through the API: an accounts-payable clerk, an issued order of 10 chairs and 2 desks, 8 chairs received.
    const location = (await server.api<{ id: number }[]>('GET', '/api/v3/locations/'))[0]!.id
    const role = await server.api('POST', '/api/v3/roles/', {
      name: 'Payables',
      type: 8,
      permissions: ['accounts_payable'],
    })
    const clerkEmail = 'paula@bills.test'
    await server.api('POST', '/api/v3/users/', [
      {
        email: clerkEmail,
        first_name: 'Paula',
        last_name: 'Payables',
        role_id: role.id,
        locations: [location],
        send_invitation_email: true,
      },
    ])
    const vendor = await server.api('POST', '/api/v3/vendors/', { name: 'Chairs & Co', email: ['orders@chairs.test'] })
    const order = await server.api<{ id: number; number: string; lines: { id: number }[] }>(
      'POST',
      '/api/v3/purchase-orders/',
      {
        vendor: vendor.id,
        location,
        lines: [
          { description: 'Desk chair', quantity: '10', unit_price: '120.5', tax_rate: '8.25' },
          { description: 'Standing desk', quantity: '2', unit_price: '349.5', tax_rate: '8.25' },
        ],
      },
    )
    await server.api('POST', `/api/v3/purchase-orders/${order.id}/issue/`)
    await server.api('POST', '/api/v3/receipts/', {
      purchase_order: order.id,
      packing_slip: 'PS-2291',
      lines: [{ po_line: order.lines[0]!.id, accepted_quantity: '8' }],
    })
    const outbox = await server.command(['outbox', '--json'])
    const mail = lastJson<{ to_address: string; body_text: string }[]>(outbox.output).find(
      (m) => m.to_address === clerkEmail,
    )!
    const link = /http:\/\/\S+\/console\/setup\/[A-Za-z0-9_-]+/.exec(mail.body_text)![0]

    // The clerk enters the bill from the order: 8 chairs pre-filled (received, nothing billed yet); bills 10.
    const clerk = await server.setPassword(link, 1280)
    const page = clerk.page
    await page.goto(`${server.base}/console/bills/new?order=${order.id}`)
    assert.equal(await page.getByLabel('Quantity: Desk chair').inputValue(), '8')
    assert.equal(await page.getByLabel('Quantity: Standing desk').inputValue(), '')
    assert.equal(await page.getByLabel('Unit price: Desk chair').inputValue(), '120.5')
    await checked(clerk.context, page)
    await page.getByLabel('Vendor’s invoice number').fill('CC-4471')
    await page.getByLabel('Invoice date').fill('2026-11-20')
    await page.getByLabel('Due date').fill('2026-12-20')
    await page.getByLabel('Quantity: Desk chair').fill('10')
    await page.getByRole('button', { name: 'Save as draft' }).click()
    await page.waitForURL(/\/console\/bills\/\d+\?done=created/)
    const billUrl = page.url().replace(/\?.*$/, '')
    assert.equal((await page.getByTestId('total').textContent())!.trim(), '1,304.41 USD')
    await page.getByRole('button', { name: 'Submit for approval' }).click()
    await page.waitForURL(/done=submit/)
    const main = await page.locator('main').innerText()
    assert.match(main, /Waiting for approval/)
    assert.match(main, /Exception: Line 1 \(Desk chair\): billed 10, received 8\./)
    await checked(clerk.context, page, 'console-bill-390.png')
    await page.screenshot({ path: shotPath('console-bill.png'), fullPage: true })
    await clerk.context.close()

    // The administrator finds it in the inbox, approves it, and pays it.
    const admin = await server.signedIn({ width: 1280 })
    await admin.page.getByRole('link', { name: 'Approvals' }).click()
    assert.match(await admin.page.locator('main').innerText(), /Bill from Chairs & Co · 1 exception/)
    await checked(admin.context, admin.page)
    await admin.page.getByRole('link', { name: 'Bill CC-4471' }).click()
    assert.match(await admin.page.locator('main').innerText(), /billed 10, received 8/)
    await checked(admin.context, admin.page)
    await admin.page.getByLabel('Comment').fill('Two more chairs arrive on Monday.')
    await admin.page.getByRole('button', { name: 'Approve' }).click()
    await admin.page.waitForURL(/\/console\/approvals\?done=approved/)
    await admin.page.goto(billUrl)
    await admin.page.getByLabel('Payment reference').fill('WIRE-88121')
    await admin.page.getByRole('button', { name: 'Mark paid' }).click()
    await admin.page.waitForURL(/done=pay/)
    assert.match(await admin.page.locator('main').innerText(), /reference WIRE-88121/)
    await checked(admin.context, admin.page)

    await admin.page.getByRole('link', { name: 'Bills', exact: true }).click()
    const list = await admin.page.locator('main').innerText()
    assert.match(list, /CC-4471/)
    assert.match(list, /Paid/)
    await admin.page.getByLabel('Match').selectOption('exception')
    await admin.page.getByRole('button', { name: 'Show' }).click()
    await admin.page.waitForURL(/match=exception/)
    assert.match(await admin.page.locator('main').innerText(), /CC-4471/)
    await checked(admin.context, admin.page)
    await admin.page.screenshot({ path: shotPath('console-bills.png'), fullPage: true })
    await admin.context.close()
  },
)
