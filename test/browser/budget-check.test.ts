/**
 * The request form's live budget check in a real browser (Debian's Chromium driven by playwright-core) against the
 * real `procurement serve`, under the console's own Content-Security-Policy: with a `block` budget for account 6100
 * made through the API, a person types a request whose amount would take it over, and — before anything is
 * submitted — the sentence that it blocks appears in the live region beside the running total; lowering the amount
 * brings it back within. Without JavaScript, "Check budgets" shows the form again with the panel filled. Nothing is
 * saved by any of it. axe-core finds no serious or critical violation with the panel filled; at 390 px nothing is cut.
 */
import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { fitsPhone, noChromium, shotPath } from '../helpers/browser.ts'
import { useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ domain: 'budgetcheck', name: 'Budget Check Co' })
const axePath = path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js')

/** Types one line: 3 desks of `price` on account 6100, at the person's own location (the form starts there). */
async function typeLine(page: Page, price: string) {
  await page.locator('#f-lines-0-description').fill('Standing desk')
  await page.locator('#f-lines-0-account').selectOption({ label: '6100 Office supplies' })
  await page.locator('#f-lines-0-quantity').fill('3')
  await page.locator('#f-lines-0-unit-price').pressSequentially(price)
}

const panel = (page: Page) => page.locator('#budget-check')

/** axe-core on the page as it is now (typed into), in a twin context that lets the script in. */
async function accessibleNow(context: BrowserContext, price: string) {
  const twin = await context.browser()!.newContext({ bypassCSP: true, storageState: await context.storageState() })
  try {
    const page = await twin.newPage()
    await page.goto(`${server.base}/console/requests/new`)
    await typeLine(page, price)
    await panel(page)
      .getByText(/This budget blocks/)
      .waitFor()
    await page.addScriptTag({ path: axePath })
    const violations = await page.evaluate(async () => {
      const { axe } = globalThis as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }> }
      }
      return (await axe.run()).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
    })
    assert.deepEqual(violations, [], 'the form with its budget panel filled: accessibility')
  } finally {
    await twin.close()
  }
}

test(
  'a request over a blocking budget is said while it is typed, before it is submitted',
  { skip, timeout: 300_000 },
  async () => {
    const location = (await server.api<{ id: number }[]>('GET', '/api/v3/locations/'))[0]!.id
    const account = await server.api('POST', '/api/v3/accounts/', { code: '6100', name: 'Office supplies' })
    const year = new Date().getUTCFullYear()
    await server.api('POST', '/api/v3/budgets/', {
      name: 'Office supplies, Head Office',
      location,
      account: account.id,
      amount: '500',
      action: 'block',
      period_start: `${year}-01-01`,
      period_end: `${year}-12-31`,
    })

    const wide = await server.signedIn({ width: 1280 })
    const page = wide.page
    await page.goto(`${server.base}/console/requests/new`)
    assert.equal(await panel(page).getAttribute('aria-live'), 'polite')
    await typeLine(page, '250')
    // 3 × 250.00 = 750.00 against 500.00 available: it would block.
    const sentence = panel(page).getByText(/This budget blocks/)
    await sentence.waitFor()
    assert.match(
      await panel(page).innerText(),
      /Budget “Office supplies, Head Office” has 500\.00 USD left; this request counts 750\.00 USD against it, 250\.00 USD more than it has\. This budget blocks: the request cannot be submitted/,
    )
    assert.equal(new URL(page.url()).pathname, '/console/requests/new', 'nothing was submitted')
    assert.equal(await page.locator('#running-total').innerText(), '750.00')
    await page.screenshot({ path: shotPath('console-request-budget-check.png'), fullPage: true })

    // Lowered: within the budget again, said in place of the warning.
    await page.locator('#f-lines-0-unit-price').fill('100')
    await panel(page)
      .getByText(/stays within it, leaving 200\.00 USD/)
      .waitFor()
    assert.equal(
      await panel(page)
        .getByText(/This budget blocks/)
        .count(),
      0,
    )
    await accessibleNow(wide.context, '250')
    await wide.context.close()

    const phone = await server.signedIn({ width: 390 })
    await phone.page.goto(`${server.base}/console/requests/new`)
    await typeLine(phone.page, '250')
    await panel(phone.page)
      .getByText(/This budget blocks/)
      .waitFor()
    await fitsPhone(phone.page)
    await phone.page.screenshot({ path: shotPath('console-request-budget-check-390.png'), fullPage: true })
    await phone.context.close()

    // Without JavaScript: "Check budgets" shows the same form again with the panel filled, nothing saved.
    const plain = await server.browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 1280, height: 900 },
      storageState: await (await server.signedIn({ width: 1280 })).context.storageState(),
    })
    const still = await plain.newPage()
    await still.goto(`${server.base}/console/requests/new`)
    await typeLine(still, '250')
    assert.doesNotMatch(await panel(still).innerText(), /blocks/, 'without the script nothing is checked yet')
    await still.getByRole('button', { name: 'Check budgets' }).click()
    await still.waitForURL(/\/console\/budgets\/check$/)
    assert.match(await panel(still).innerText(), /This budget blocks/)
    assert.equal(await still.locator('#f-lines-0-unit-price').inputValue(), '250')
    assert.equal(await still.locator('#f-lines-0-description').inputValue(), 'Standing desk')
    await plain.close()

    const requests = await server.api<unknown[]>('GET', '/api/v3/requests/')
    assert.equal(requests.length, 0, 'no request was saved by any check')
  },
)
