/**
 * Settings → Set-up in a real browser (issue #33), against the real `procurement` command on an embedded
 * database: a company is set up from the console (a currency after a mistake said in words, a department, a
 * role with permissions as checkboxes, an approval rule); then every set-up page and every list and detail
 * page is checked with axe-core and at 390 px: the page does not scroll sideways, no table scrolls inside
 * its box, and every cell is on the screen (rows become cards).
 * Screenshots for the docs: UPDATE_SCREENSHOTS=1 node --import tsx --test test/browser/setup-journeys.test.ts
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { accessible, fitsPhone as pageFitsPhone, noChromium, shotPath } from '../helpers/browser.ts'
import { useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ domain: 'setup', name: 'Setup', adminEmail: 'admin@setup.test' })

/** At 390 px wide the page does not scroll sideways. */
async function fitsPhone(page: Page): Promise<void> {
  await pageFitsPhone(page)
  // Not only the page: no table is cut inside a sideways-scrolling box, and every cell is on the screen.
  const cut = await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<Element> } }).document
    type Element = {
      scrollWidth: number
      clientWidth: number
      getBoundingClientRect(): { right: number; left: number }
      textContent: string | null
    }
    const out: string[] = []
    for (const wrap of doc.querySelectorAll('.table-wrap'))
      if (wrap.scrollWidth > wrap.clientWidth + 1) out.push(`a table scrolls ${wrap.scrollWidth - wrap.clientWidth} px`)
    for (const cell of doc.querySelectorAll('td, th:not(thead th)')) {
      const box = cell.getBoundingClientRect()
      if (box.right > 391 || box.left < -1) out.push(`cell "${(cell.textContent ?? '').trim().slice(0, 30)}" is cut`)
    }
    return out
  })
  assert.deepEqual(cut, [], `${page.url()} at 390 px`)
}

/** axe and the 390 px check on the page the journey is on. */
async function checked(context: BrowserContext, page: Page): Promise<void> {
  await accessible(context, page.url())
  await fitsPhone(page)
}

const SETUP = [
  'roles',
  'approval-rules',
  'departments',
  'currencies',
  'payment-terms',
  'shipping-terms',
  'payment-methods',
  'shipping-methods',
]

test(
  'set up a company from the console: a currency, a department, a role, an approval rule',
  { skip, timeout: 300_000 },
  async () => {
    const { context, page } = await server.signedIn()
    await page.goto(`${server.base}/console/settings/setup`)
    await checked(context, page)
    await page.getByRole('link', { name: 'Currencies' }).click()
    await page.getByLabel('Code').fill('eur')
    await page.getByLabel('Rate').fill('1,08')
    await page.getByRole('button', { name: 'Add currency' }).click()
    assert.match(await page.content(), /must be a three-letter currency code in capitals, like EUR/)
    await checked(context, page)
    await page.getByLabel('Code').fill('EUR')
    await page.getByLabel('Description (optional)').fill('Euro')
    await page.getByLabel('Rate').fill('1.08')
    await page.getByRole('button', { name: 'Add currency' }).click()
    await page.waitForURL(/done=saved/)
    assert.match(await page.content(), />EUR</)
    await checked(context, page)

    await page.goto(`${server.base}/console/settings/setup/departments`)
    await page.getByLabel('Name').fill('Facilities')
    await page.getByRole('button', { name: 'Add department' }).click()
    await page.waitForURL(/done=saved/)
    await checked(context, page)

    await page.goto(`${server.base}/console/settings/setup/roles`)
    await page.getByLabel('Name', { exact: true }).fill('Site approver')
    await page.getByLabel(/^Request —/).check()
    await page.getByLabel(/^Approval —/).check()
    await page.getByRole('button', { name: 'Add role' }).click()
    await page.waitForURL(/done=saved/)
    assert.match(await page.content(), /Approval, Request/)
    await checked(context, page)

    await page.goto(`${server.base}/console/settings/setup/approval-rules`)
    await page.getByLabel('Minimum total (optional)').fill('500')
    await page.getByLabel(/admin@setup\.test/).check()
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.waitForURL(/done=saved/)
    assert.match(await page.content(), /Step 1 · every location/)
    await checked(context, page)
    await context.close()
  },
)

test(
  'every set-up page and every list and detail page: axe, and nothing cut at 390 px',
  { skip, timeout: 300_000 },
  async () => {
    const { context, page } = await server.signedIn()
    const pages = [
      '/console/account',
      '/console/requests',
      '/console/approvals',
      '/console/users',
      '/console/locations',
      '/console/vendors',
      '/console/settings/applications',
      '/console/settings/webhooks',
      '/console/outbox',
      '/console/settings/setup',
      ...SETUP.map((kind) => `/console/settings/setup/${kind}`),
    ]
    for (const url of pages) {
      await page.goto(`${server.base}${url}`)
      await checked(context, page)
      // And one row's page of every list that has one.
      const links = page.locator('main table tbody a')
      const first = (await links.count()) === 0 ? null : await links.first().getAttribute('href')
      if (first !== null && first.startsWith('/console/')) {
        await page.goto(`${server.base}${first}`)
        await checked(context, page)
      }
    }
    for (const [kind, width] of SETUP.slice(0, 4).flatMap(
      (k) =>
        [
          [k, 1280],
          [k, 390],
        ] as const,
    )) {
      await page.setViewportSize({ width, height: 900 })
      await page.goto(`${server.base}/console/settings/setup/${kind}`)
      await page.screenshot({ path: shotPath(`console-setup-${kind}-${width}.png`), fullPage: true })
    }
    await context.close()
  },
)
