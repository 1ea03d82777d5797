/**
 * Expense reports in a real browser (Debian's Chromium driven by playwright-core) against the real
 * `procurement serve` on an embedded database: an employee on a 390 px phone viewport makes an expense report
 * from the form and submits it; the administrator (the expense approver) finds it in the approvals inbox, reads
 * its lines on the decision page and approves it, then marks it reimbursed as accounts payable. axe-core finds
 * no serious or critical violation on any page; at 390 px nothing scrolls sideways.
 * Not yet here: attaching a receipt per line from the phone (the console has no upload of its own yet; receipts
 * go through the API — test/expense-reports-receipts.test.ts).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { accessible, fitsPhone, noChromium } from '../helpers/browser.ts'
import { lastJson, useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ domain: 'expenses' })

async function checked(context: BrowserContext, page: Page) {
  await accessible(context, page.url())
  await fitsPhone(page)
}

test(
  'an employee’s expense report at 390 px: made, submitted, approved from the inbox, reimbursed',
  { skip, timeout: 300_000 },
  async () => {
    const location = (await server.api<{ id: number }[]>('GET', '/api/v3/locations/'))[0]!.id
    const roles = await server.api<{ id: number; name: string }[]>('GET', '/api/v3/roles/?page_size=100')
    const requester = roles.find((r) => r.name === 'Requester')!
    const email = 'erin@expenses.test'
    await server.api('POST', '/api/v3/users/', [
      {
        email,
        first_name: 'Erin',
        last_name: 'Employee',
        role_id: requester.id,
        locations: [location],
        send_invitation_email: true,
      },
    ])
    const me = await server.api<{ id: number }>('GET', '/api/v3/users/me/')
    await server.api('POST', '/api/v3/approval-rules/', {
      document: 'expense_report',
      location,
      step: 1,
      approvers: [me.id],
    })
    const outbox = await server.command(['outbox', '--json'])
    const mail = lastJson<{ to_address: string; body_text: string }[]>(outbox.output).find(
      (m) => m.to_address === email,
    )!
    const link = /http:\/\/\S+\/console\/setup\/[A-Za-z0-9_-]+/.exec(mail.body_text)![0]

    const employee = await server.setPassword(link, 390)
    const page = employee.page
    await page.goto(`${server.base}/console/expenses`)
    await checked(employee.context, page)
    await page.getByRole('link', { name: 'New expense report' }).click()
    await checked(employee.context, page)
    await page.getByLabel('Title').fill('Customer visit')
    await page.getByLabel('Date').first().fill('2026-11-20')
    await page.getByLabel('Merchant').first().fill('Airport taxi')
    await page.getByLabel('Amount').first().fill('18.50')
    await page.getByLabel('Date').nth(1).fill('2026-11-21')
    await page.getByLabel('Merchant').nth(1).fill('Lunch')
    await page.getByLabel('Amount').nth(1).fill('12')
    await page.getByRole('button', { name: 'Save as a draft' }).click()
    await page.waitForURL(/\/console\/expenses\/\d+\?done=created/)
    const reportUrl = page.url().replace(/\?.*$/, '')
    assert.match(await page.locator('main').innerText(), /30\.50 USD/)
    await checked(employee.context, page)
    await page.getByRole('button', { name: 'Submit for approval' }).click()
    await page.waitForURL(/done=submit/)
    assert.match(await page.locator('main').innerText(), /Awaiting approval/)
    await checked(employee.context, page)
    await employee.context.close()

    const admin = await server.signedIn({ width: 390 })
    await admin.page.goto(`${server.base}/console/approvals`)
    assert.match(await admin.page.locator('main').innerText(), /Expense report EXP-/)
    await checked(admin.context, admin.page)
    await admin.page
      .getByRole('link', { name: /Expense report EXP-/ })
      .first()
      .click()
    assert.match(await admin.page.locator('main').innerText(), /Airport taxi/)
    await checked(admin.context, admin.page)
    await admin.page.getByRole('button', { name: 'Approve' }).click()
    await admin.page.waitForURL(/\/console\/approvals\?done=approved/)
    await admin.page.goto(reportUrl)
    await admin.page.getByLabel('Payment reference').fill('SEPA-2026-1181')
    await admin.page.getByRole('button', { name: 'Mark reimbursed' }).click()
    await admin.page.waitForURL(/done=reimburse/)
    assert.match(await admin.page.locator('main').innerText(), /Reimbursed[\s\S]*SEPA-2026-1181/)
    await checked(admin.context, admin.page)
    await admin.context.close()
  },
)
