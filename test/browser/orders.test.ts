/**
 * Orders and receiving in a real browser (Debian's Chromium driven by playwright-core) against the real
 * `procurement serve` on an embedded database: an approved request (made through the API) becomes a purchase
 * order in one click; the buyer edits the draft on its form (a wrong quantity said at its field first), issues
 * it, receives part of it on the Receiving form, and finds it in the orders list. axe-core finds no serious or critical violation on any page; at 390 px nothing scrolls sideways.
 * Screenshots for docs/orders.md: UPDATE_SCREENSHOTS=1 node --import tsx --test test/browser/orders.test.ts
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { accessible, freePort, launchChromium, noChromium } from '../helpers/browser.ts'
import { run, runToEnd, type Running } from '../helpers/process.ts'

const skip = noChromium
const root = path.resolve(import.meta.dirname, '../..')
const shots =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(root, 'docs/images')
    : fs.mkdtempSync(path.join(os.tmpdir(), 'shots-'))
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-orders-'))
const PASSWORD = 'a long and private passphrase'
const AUDIENCE = 'procurement-api'

let browser: Browser | undefined
let serving: Running | undefined
before(async () => {
  if (!skip) browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  serving?.child.kill('SIGTERM')
  await serving?.exited
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** At 390 px the page does not scroll sideways; a full-page screenshot for the docs. */
async function narrow(page: Page, shot: string) {
  await page.setViewportSize({ width: 390, height: 844 })
  const wide = await page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
        .scrollWidth,
  )
  assert.ok(wide <= 390, `${page.url()} is ${wide} px wide at 390 px`)
  await page.screenshot({ path: path.join(shots, shot), fullPage: true })
  await page.setViewportSize({ width: 1280, height: 900 })
}

test('an approved request → order in one click → issued → partly received', { skip, timeout: 300_000 }, async () => {
  const port = await freePort()
  const site = `http://127.0.0.1:${port}`
  const env = { DATA_DIR: dataDir, DEMO_SEED: 'false', PORT: String(port), LOG_LEVEL: 'warn' }
  const created = await runToEnd(
    ['tenants', 'create', '--domain', 'shop', '--name', 'Shop', '--admin-email', 'admin@shop.test', '--json'],
    env,
  )
  assert.equal(created.code, 0, created.output)
  const { setup_url } = JSON.parse(created.output.trim().split('\n').at(-1)!) as { setup_url: string }
  serving = run(['serve'], env)
  await serving.waitFor(/listening on http:\/\/\S+/, 60_000)
  const client = await runToEnd(['clients', 'create', '--domain', 'shop', '--email', 'admin@shop.test', '--json'], env)
  assert.equal(client.code, 0, client.output)
  const creds = JSON.parse(client.output.trim().split('\n').at(-1)!) as { client_id: string; client_secret: string }
  const issued = await fetch(`${site}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...creds, audience: AUDIENCE, grant_type: 'client_credentials' }),
  })
  const { access_token } = (await issued.json()) as { access_token: string }
  const api = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${site}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${access_token}`,
        'x-service-client': 'api',
        'content-type': 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    assert.ok(response.status < 300, `${method} ${url} → ${response.status} ${await response.clone().text()}`)
    return ((await response.json()) as { data: { id: number } }).data
  }
  const vendor = await api('POST', '/api/v3/vendors/', { name: 'Chairs & Co', email: ['orders@chairs.test'] })
  const location = ((await api('GET', '/api/v3/locations/')) as unknown as { id: number }[])[0]!.id
  const request = await api('POST', '/api/v3/requests/', {
    location,
    description: 'Chairs for the new hires',
    lines: [
      { description: 'Desk chair', vendor: vendor.id, quantity: '4', unit_price: '120.50' },
      { description: 'Footrest', vendor: vendor.id, quantity: '2', unit_price: '15' },
    ],
  })
  await api('POST', `/api/v3/requests/${request.id}/submit/`)

  const context = await browser!.newContext()
  const page = await context.newPage()
  await page.goto(setup_url)
  await page.getByLabel('New password').fill(PASSWORD)
  await page.getByLabel('Repeat the password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Set password' }).click()
  await page.waitForURL(/\/console\/account/)

  await page.goto(`${site}/console/requests/${request.id}`)
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
