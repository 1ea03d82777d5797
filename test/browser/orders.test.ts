/**
 * Orders and receiving in a real browser (Debian's Chromium driven by playwright-core) against the real
 * `procurement serve` on an embedded database: an approved request (made through the API) becomes a purchase
 * order in one click; the buyer edits the draft on its form (a wrong quantity said at its field first), issues
 * it, receives part of it on the Receiving form, and finds it in the orders list. axe-core finds no serious or critical violation on any page; at 390 px nothing scrolls sideways.
 * Screenshots for docs/orders.md: UPDATE_SCREENSHOTS=1 node --import tsx --test test/browser/orders.test.ts
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { accessible, fitsPhone, noChromium, shotPath } from '../helpers/browser.ts'
import { useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ domain: 'shop', name: 'Shop' })

/** At 390 px the page does not scroll sideways; a full-page screenshot for the docs. */
async function narrow(page: Page, shot: string) {
  await page.setViewportSize({ width: 390, height: 844 })
  await fitsPhone(page)
  await page.screenshot({ path: shotPath(shot), fullPage: true })
  await page.setViewportSize({ width: 1280, height: 900 })
}

test('an approved request → order in one click → issued → partly received', { skip, timeout: 300_000 }, async () => {
  const vendor = await server.api('POST', '/api/v3/vendors/', { name: 'Chairs & Co', email: ['orders@chairs.test'] })
  const location = (await server.api<{ id: number }[]>('GET', '/api/v3/locations/'))[0]!.id
  const request = await server.api('POST', '/api/v3/requests/', {
    location,
    description: 'Chairs for the new hires',
    lines: [
      { description: 'Desk chair', vendor: vendor.id, quantity: '4', unit_price: '120.50' },
      { description: 'Footrest', vendor: vendor.id, quantity: '2', unit_price: '15' },
    ],
  })
  await server.api('POST', `/api/v3/requests/${request.id}/submit/`)

  const { context, page } = await server.signedIn({ width: 1280 })

  await page.goto(`${server.base}/console/requests/${request.id}`)
  await page.getByRole('button', { name: 'Make purchase orders' }).click()
  await page.waitForURL(/\/console\/orders\/\d+\?done=made/)
  assert.equal((await page.getByTestId('total').textContent())!.trim(), '512.00 USD')
  await accessible(context, page.url())

  // The draft's form: a wrong quantity is said at its field (the summary takes the focus), what was typed
  // kept; then the fixed form saves and the total follows.
  await page.getByRole('link', { name: 'Edit', exact: true }).click()
  await page.waitForURL(/\/edit$/)
  await accessible(context, page.url())
  await page.locator('#f-lines-1-quantity').fill('three')
  await page.getByLabel('Notes').fill('Deliver to the side door.')
  await page.getByRole('button', { name: 'Save draft' }).click()
  await page.locator('#error-summary').waitFor()
  assert.match(await page.locator('#error-summary').innerText(), /Line 2, Quantity/)
  const focused = await page.evaluate(
    () => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id,
  )
  assert.equal(focused, 'error-summary')
  assert.equal(await page.locator('#f-lines-1-quantity').inputValue(), 'three')
  assert.equal(await page.getByLabel('Notes').inputValue(), 'Deliver to the side door.')
  await accessible(context, page.url())
  await page.locator('#f-lines-1-quantity').fill('3')
  await narrow(page, 'console-order-edit.png')
  await page.getByRole('button', { name: 'Save draft' }).click()
  await page.waitForURL(/done=saved/)
  assert.equal((await page.getByTestId('total').textContent())!.trim(), '527.00 USD')
  assert.match(await page.locator('main').innerText(), /Deliver to the side door\./)

  await page.getByRole('button', { name: 'Issue' }).click()
  await page.waitForURL(/done=issue/)
  assert.match(await page.locator('main').innerText(), /Issued/)
  await accessible(context, page.url())
  await narrow(page, 'console-order.png')

  await page.getByRole('link', { name: 'Receive' }).click()
  await page.waitForURL(/\/receive$/)
  await accessible(context, page.url())
  await page.getByLabel('Packing slip').fill('PS-1001')
  await page.getByLabel('Accepted now: Desk chair').fill('3')
  await page.getByRole('button', { name: 'Post receipt' }).click()
  await page.waitForURL(/done=received/)
  assert.match(await page.locator('main').innerText(), /PS-1001/)
  await accessible(context, page.url())
  await narrow(page, 'console-receiving.png')

  await page.getByRole('link', { name: 'Orders', exact: true }).click()
  await accessible(context, page.url())
  assert.match(await page.locator('main').innerText(), /Partly received/)
  await narrow(page, 'console-orders.png')
})
