/**
 * The console for everyday use (DECISIONS, "Daily use of the console"), in a real browser (Debian's Chromium
 * driven by playwright-core) against the real `procurement serve` with the demo company: the administrator
 * lands on Home — counts that link to their lists, this month's spend against budgets — and the menu groups
 * Buy, Pay, Reports and Set-up, one button at 390 px; the spend report draws its chart beside its table; an
 * accounts-payable clerk (requester@example.com holds Accounts Payable at the Head Office) finds Approvals in
 * her menu. axe-core finds no serious or critical violation on any page; at 390 px nothing scrolls sideways.
 * With UPDATE_SCREENSHOTS=1 it writes the screenshots of docs/images (console-home*.png, console-report*.png).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checked, fitsPhone, noChromium, shotPath } from '../helpers/browser.ts'
import { lastJson, useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ demo: true })

test('Home, the grouped menu and a report, at 1280 px and at 390 px', { skip, timeout: 300_000 }, async () => {
  const wide = await server.signedIn({ width: 1280 })
  const page = wide.page
  await page.goto(`${server.base}/console/`)
  await checked(wide.context, page)
  const main = await page.locator('main').innerText()
  assert.match(main, /Approvals waiting for you/)
  assert.match(main, /Spend in \w+ \d{4}: [\d,.]+ USD/)
  const menu = await page.locator('nav[aria-label="Console"]').innerText()
  for (const group of ['Buy', 'Pay', 'Reports', 'Set-up']) assert.match(menu, new RegExp(`^${group}$`, 'im'))
  await page.screenshot({ path: shotPath('console-home.png'), fullPage: true })

  // A count is a link to its list.
  const count = page.locator('main ul.counts a').first()
  const href = await count.getAttribute('href')
  assert.ok(href?.startsWith('/console/'), `a count links into the console (${href})`)
  await count.click()
  await page.waitForURL((url) => url.pathname === href!.replace(/\?.*$/, ''))

  await page.goto(`${server.base}/console/reports?report=spend&group_by=vendor`)
  await checked(wide.context, page)
  assert.equal(await page.locator('main svg[role="img"]').count(), 1, 'the chart is drawn')
  assert.ok((await page.locator('main table tbody tr').count()) > 0, 'the table beside it has rows')
  await page.screenshot({ path: shotPath('console-report.png'), fullPage: true })
  await wide.context.close()

  const phone = await server.signedIn({ width: 390 })
  await phone.page.goto(`${server.base}/console/`)
  await checked(phone.context, phone.page)
  const nav = phone.page.locator('nav[aria-label="Console"]')
  assert.equal(await nav.isVisible(), false, 'at 390 px the menu is one button, closed')
  await phone.page.screenshot({ path: shotPath('console-home-390.png'), fullPage: true })
  await phone.page.locator('details.menu > summary').click()
  assert.equal(await nav.isVisible(), true, 'the button opens the menu')
  await fitsPhone(phone.page)
  await phone.page.goto(`${server.base}/console/reports?report=spend&group_by=vendor`)
  await checked(phone.context, phone.page)
  await phone.page.screenshot({ path: shotPath('console-report-390.png'), fullPage: true })
  await phone.context.close()
})

/** Each report with a sensible query (a grouping where it has one), for docs/reports.md's pictures. */
const REPORT_PAGES: { name: string; query: string }[] = [
  { name: 'spend', query: 'group_by=vendor' },
  { name: 'orders', query: 'group_by=vendor' },
  { name: 'budgets', query: '' },
  { name: 'commitments', query: '' },
  { name: 'payables-aging', query: '' },
  { name: 'cycle-times', query: 'group_by=location' },
]

test('every report draws its chart beside a table with rows, at 1280 px', { skip, timeout: 300_000 }, async () => {
  const wide = await server.signedIn({ width: 1280 })
  const page = wide.page
  for (const { name, query } of REPORT_PAGES) {
    await page.goto(`${server.base}/console/reports?report=${name}${query === '' ? '' : `&${query}`}`)
    await checked(wide.context, page)
    assert.equal(await page.locator('main svg[role="img"]').count(), 1, `the ${name} chart is drawn`)
    assert.ok((await page.locator('main table tbody tr').count()) > 0, `the ${name} table has rows`)
    await page.screenshot({ path: shotPath(`console-report-${name}.png`), fullPage: true })
  }
  await wide.context.close()
})

test('an accounts-payable clerk finds Approvals in her menu', { skip, timeout: 300_000 }, async () => {
  const printed = await server.command([
    'users',
    'reset-password',
    '--domain',
    'demo',
    '--email',
    'requester@example.com',
    '--json',
  ])
  assert.equal(printed.code, 0, printed.output)
  const { setup_url } = lastJson<{ setup_url: string }>(printed.output)
  const clerk = await server.setPassword(setup_url, 390)
  await clerk.page.goto(`${server.base}/console/`)
  await clerk.page.locator('details.menu > summary').click()
  const approvals = clerk.page.locator('nav[aria-label="Console"]').getByRole('link', { name: /^Approvals/ })
  assert.equal(await approvals.count(), 1, 'Approvals is in the menu')
  await approvals.click()
  await clerk.page.waitForURL(/\/console\/approvals/)
  await checked(clerk.context, clerk.page)
  await clerk.context.close()
})
