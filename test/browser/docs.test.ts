/**
 * /docs works end to end in a real browser: "Authorize" with the demo application's Client ID and Secret
 * obtains a token (the page sends the audience), and "Try it out" on GET /api/v3/vendors/ gets a 200.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { noChromium } from '../helpers/browser.ts'
import { useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
// The demo company, and the credentials of its application as the first start printed them.
const server = useConsoleServer({ demo: true, setPassword: false })

test(
  'Authorize with client credentials, then Try it out on GET /api/v3/vendors/ → 200',
  { skip, timeout: 180_000 },
  async () => {
    const { base, browser } = server
    const { client_id: clientId, client_secret: clientSecret } = server.demoClient!
    const page = await browser.newPage()
    const refused: string[] = []
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text())
    })
    await page.goto(`${base}/docs/`)
    await page.locator('button.authorize').first().click()
    const oauth = page.locator('.auth-container').filter({ hasText: 'clientCredentials' })
    await oauth.locator('input[type=text]').first().fill(clientId)
    await oauth.locator('input[type=password]').first().fill(clientSecret)
    const tokenResponse = page.waitForResponse((r) => r.url().startsWith(`${base}/oauth/token`))
    await oauth.locator('button', { hasText: 'Authorize' }).click()
    const token = await tokenResponse
    assert.equal(token.status(), 200, await token.text())
    assert.ok(new URL(token.url()).searchParams.get('audience'), 'the page sent the audience')
    await page.locator('button.close-modal').first().click()

    // The page draws operations as they scroll into view; the filter by tag brings the vendors first.
    await page.locator('input.operation-filter-input').fill('vendors')
    const operation = page.locator('#operations-vendors-listVendors')
    await operation.locator('.opblock-summary').first().click()
    // The page opens operations ready to try (tryItOutEnabled); a person clicks "Try it out" otherwise.
    const tryOut = operation.locator('button.try-out__btn')
    if (/Try it out/.test(await tryOut.innerText())) await tryOut.click()
    // No filter arrives pre-filled from the document's examples: the request is the plain list (only the
    // required X-Service-Client header has its one value, api).
    const filled = await operation
      .locator('.parameters input, .parameters select')
      .evaluateAll((inputs) => inputs.map((i) => (i as { value: string }).value).filter((v) => v !== '' && v !== '--'))
    assert.deepEqual(filled, ['api'], 'no query parameter is pre-filled')
    const apiResponse = page.waitForResponse((r) => r.url().startsWith(`${base}/api/v3/vendors/`))
    await operation.locator('button.execute').click()
    assert.equal((await apiResponse).status(), 200)
    assert.equal(new URL((await apiResponse).url()).search, '', 'the list was asked for without filters')
    // Our name in the header, not the documentation tool's.
    assert.equal(await page.title(), 'Procurement service API')
    const logo = await page.locator('.topbar img').first().getAttribute('src')
    assert.ok(logo !== null && !/swagger/i.test(logo), `the header shows our logo (${logo})`)
    await operation.locator('.live-responses-table tbody .response-col_status').first().waitFor()
    assert.match(await operation.locator('.live-responses-table tbody .response-col_status').first().innerText(), /200/)
    assert.deepEqual(refused, [], 'nothing on the page was refused by its Content-Security-Policy')
  },
)
