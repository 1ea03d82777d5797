/**
 * Settings → Webhooks in a real browser (Debian's Chromium driven by playwright-core) against the real
 * `procurement` command on an embedded database: the administrator adds an endpoint for a local receiver,
 * copies its signing secret off the page, creates a vendor, sees the delivery arrive — signed with that
 * secret — and listed as delivered, retries it, rotates the secret; axe-core finds no serious or critical
 * violation on the pages, and at 390 px nothing scrolls sideways. (The CSV import journey is in
 * admin-journeys.test.ts.)
 * Screenshots for the docs: UPDATE_SCREENSHOTS=1 npm run test:browser
 */
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, test } from 'node:test'
import { accessible, checked, fitsPhone, noChromium, shotPath } from '../helpers/browser.ts'
import { useConsoleServer } from '../helpers/console-server.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'

const skip = noChromium
let receiver: Receiver | undefined
before(async () => {
  if (!skip) receiver = await startReceiver()
})
after(async () => {
  await receiver?.close()
})
const server = useConsoleServer({
  domain: 'acme',
  name: 'Acme',
  env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
})

/** The Standard Webhooks signature of a delivery with `secret` (whsec_ + base64 key). */
const signature = (secret: string, id: string, timestamp: string, body: string) =>
  createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')

test(
  'add an endpoint, copy its secret, see a signed delivery arrive and listed, retry it, rotate',
  { skip, timeout: 300_000 },
  async () => {
    const { context, page } = await server.signedIn()

    await page.goto(`${server.base}/console/settings/webhooks`)
    await checked(context, page)
    await page.getByLabel('URL').fill(`${receiver!.url}/hooks`)
    await page.getByLabel('Event types').fill('vendor.*')
    await page.getByLabel('Description').fill('ERP sync')
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    await page.waitForURL(/\/console\/settings\/webhooks\/\d+$/)
    const secret = (await page.getByTestId('webhook-secret').textContent())!.trim()
    assert.match(secret, /^whsec_/)
    const endpointUrl = page.url()
    await accessible(context, endpointUrl)

    await page.goto(`${server.base}/console/vendors/new`)
    await page.getByLabel('Name', { exact: true }).fill('Hooked Supplies')
    await page.getByRole('button', { name: /Create|Save/ }).click()
    await page.waitForURL(/\/console\/vendors\/\d+/)
    const [first] = await receiver!.waitFor(1)
    const sent = first!.headers['webhook-signature']!.split(' ').map((s) => s.replace(/^v1,/, ''))
    assert.ok(
      sent.includes(
        signature(secret, first!.headers['webhook-id']!, first!.headers['webhook-timestamp']!, first!.body),
      ),
      'signed with the secret the page showed',
    )

    for (let i = 0; i < 100; i++) {
      await page.goto(endpointUrl)
      if ((await page.content()).includes('Delivered')) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.match(await page.content(), /Delivered/)
    await fitsPhone(page)
    await page.screenshot({ path: shotPath('console-webhook-390.png'), fullPage: true })
    await page
      .getByRole('button', { name: /^Retry delivery/ })
      .first()
      .click()
    await page.waitForURL(/done=retried/)
    await receiver!.waitFor(2)

    await page.getByRole('button', { name: 'Rotate secret' }).click()
    const rotated = (await page.getByTestId('webhook-secret').textContent())!.trim()
    assert.notEqual(rotated, secret)
    await context.close()
  },
)
