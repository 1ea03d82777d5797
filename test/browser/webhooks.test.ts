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
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { accessible, fitsPhone, freePort, launchChromium, noChromium } from '../helpers/browser.ts'
import { run, runToEnd, type Running } from '../helpers/process.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'

const skip = noChromium
const root = path.resolve(import.meta.dirname, '../..')
const shots =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(root, 'docs/images')
    : fs.mkdtempSync(path.join(os.tmpdir(), 'shots-'))
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-browser-hooks-'))
const PASSWORD = 'a long and private passphrase'

let port = 0
let base = ''
let server: Running | undefined
let browser: Browser | undefined
let receiver: Receiver | undefined
const env = () => ({
  DATA_DIR: dataDir,
  DEMO_SEED: 'false',
  PORT: String(port),
  LOG_LEVEL: 'warn',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
})

before(async () => {
  if (skip) return
  port = await freePort()
  base = `http://127.0.0.1:${port}`
  browser = await launchChromium()
  receiver = await startReceiver()
})
after(async () => {
  await browser?.close()
  await receiver?.close()
  server?.child.kill('SIGTERM')
  await server?.exited
  fs.rmSync(dataDir, { recursive: true, force: true })
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
    const created = await runToEnd(
      ['tenants', 'create', '--domain', 'acme', '--name', 'Acme', '--admin-email', 'admin@acme.test', '--json'],
      env(),
    )
    assert.equal(created.code, 0, created.output)
    const { setup_url } = JSON.parse(created.output.trim().split('\n').at(-1)!) as { setup_url: string }
    server = run(['serve'], env())
    await server.waitFor(/listening on http:\/\/\S+/, 60_000)

    const context = await browser!.newContext({ viewport: { width: 390, height: 844 } })
    const page = await context.newPage()
    await page.goto(setup_url)
    await page.getByLabel('New password').fill(PASSWORD)
    await page.getByLabel('Repeat the password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.waitForURL(/\/console\/account/)

    await page.goto(`${base}/console/settings/webhooks`)
    await accessible(context, page.url())
    await fitsPhone(page)
    await page.getByLabel('URL').fill(`${receiver!.url}/hooks`)
    await page.getByLabel('Event types').fill('vendor.*')
    await page.getByLabel('Description').fill('ERP sync')
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    await page.waitForURL(/\/console\/settings\/webhooks\/\d+$/)
    const secret = (await page.getByTestId('webhook-secret').textContent())!.trim()
    assert.match(secret, /^whsec_/)
    const endpointUrl = page.url()
    await accessible(context, endpointUrl)

    await page.goto(`${base}/console/vendors/new`)
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
    await page.screenshot({ path: path.join(shots, 'console-webhook-390.png'), fullPage: true })
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
