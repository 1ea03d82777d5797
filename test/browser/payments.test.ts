/**
 * Payments in a real browser (Debian's Chromium driven by playwright-core) against the real `procurement serve`
 * on an embedded database: the administrator enters a vendor's bank details through the API; an
 * accounts-payable clerk sees them unverified, verifies them (four eyes), selects the vendor's approved bill on
 * the Payments page, makes a run, submits it (approved at once: no rule), finds the bank file link and confirms
 * the run; the bill is then paid. axe-core finds no serious or critical violation on any page; at 390 px
 * nothing scrolls sideways.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { accessible, fitsPhone, noChromium } from '../helpers/browser.ts'
import { lastJson, useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ domain: 'payments' })

async function checked(context: BrowserContext, page: Page) {
  await accessible(context, page.url())
  const width = page.viewportSize()!.width
  await page.setViewportSize({ width: 390, height: 844 })
  await fitsPhone(page)
  await page.setViewportSize({ width, height: 900 })
}

test(
  'verify a vendor’s bank details, pay its bill in a run, download the file, confirm',
  { skip, timeout: 300_000 },
  async () => {
    const location = await server
      .api<{ id: number; currency: { name: string } | string }>('GET', '/api/v3/locations/')
      .then((all) => (all as unknown as { id: number; currency: { name: string } | string }[])[0]!)
    const currency = typeof location.currency === 'string' ? location.currency : location.currency.name
    const role = await server.api('POST', '/api/v3/roles/', {
      name: 'Payables',
      type: 8,
      permissions: ['accounts_payable'],
    })
    const clerkEmail = 'paula@payments.test'
    await server.api('POST', '/api/v3/users/', [
      {
        email: clerkEmail,
        first_name: 'Paula',
        last_name: 'Payables',
        role_id: role.id,
        locations: [location.id],
        send_invitation_email: true,
      },
    ])
    await server.api('POST', '/api/v3/bank-accounts/', {
      name: 'Operating account',
      account_holder: 'Payments Demo Corp',
      iban: 'DE02120300000000202051',
      bic: 'BYLADEM1001',
      currency,
    })
    const vendor = await server.api('POST', '/api/v3/vendors/', { name: 'Chairs & Co', email: [] })
    await server.api('PUT', `/api/v3/vendors/${vendor.id}/bank-account/`, {
      account_holder: 'Chairs & Co GmbH',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
    })
    const bill = await server.api('POST', '/api/v3/bills/', {
      number: 'CC-9001',
      vendor: vendor.id,
      location: location.id,
      due_date: '2026-12-20',
      lines: [{ description: 'Desk chairs', quantity: '4', unit_price: '120.5' }],
    })
    await server.api('POST', `/api/v3/bills/${bill.id}/submit/`)
    const outbox = await server.command(['outbox', '--json'])
    const mail = lastJson<{ to_address: string; body_text: string }[]>(outbox.output).find(
      (m) => m.to_address === clerkEmail,
    )!
    const link = /http:\/\/\S+\/console\/setup\/[A-Za-z0-9_-]+/.exec(mail.body_text)![0]

    const clerk = await server.setPassword(link, 1280)
    const page = clerk.page
    await page.getByRole('link', { name: 'Payments' }).click()
    let main = await page.locator('main').innerText()
    assert.match(main, /Chairs & Co/)
    assert.match(main, /Bank details not verified/)
    await checked(clerk.context, page)

    await page.getByRole('link', { name: 'Bank details of Chairs & Co' }).click()
    assert.match(await page.locator('main').innerText(), /Not verified/)
    await checked(clerk.context, page)
    await page.getByRole('button', { name: 'Verify these bank details' }).click()
    await page.waitForURL(/done=verified/)
    assert.match(await page.locator('main').innerText(), /Verified/)
    await checked(clerk.context, page)

    await page.goto(`${server.base}/console/payments`)
    await page.getByLabel('Pay CC-9001').check()
    await page.getByLabel('Execution date').fill('2026-12-01')
    await page.getByRole('button', { name: 'Make a payment run of the selected bills' }).click()
    await page.waitForURL(/\/console\/payment-runs\/\d+\?done=created/)
    main = await page.locator('main').innerText()
    assert.match(main, /482\.00/)
    await checked(clerk.context, page)
    await page.getByRole('button', { name: 'Submit for approval' }).click()
    await page.waitForURL(/done=submit/)
    const download = page.getByRole('link', { name: /Download the bank file/ })
    assert.equal(await download.count(), 1)
    const href = await download.getAttribute('href')
    const file = await page.request.get(`${server.base}${href}`)
    assert.equal(file.status(), 200)
    assert.match(await file.text(), /<CtrlSum>482\.00<\/CtrlSum>/)
    await checked(clerk.context, page)
    await page.getByRole('button', { name: 'Confirm the bank paid it' }).click()
    await page.waitForURL(/done=confirm/)
    assert.match(await page.locator('main').innerText(), /Confirmed: paid/)
    await checked(clerk.context, page)
    const paid = await server.api<{ status: string }>('GET', `/api/v3/bills/${bill.id}/`)
    assert.equal(paid.status, 'paid')
    await clerk.context.close()
  },
)
