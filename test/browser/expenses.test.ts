/**
 * Expense reports in a real browser (Debian's Chromium driven by playwright-core) against the real
 * `procurement serve` on an embedded database: an employee on a 390 px phone viewport makes an expense report
 * from the form, attaches a photo of each line's receipt from the report's page (its own upload form per line)
 * and submits it; the administrator (the expense approver) finds it in the approvals inbox, reads its lines on
 * the decision page with each receipt shown inline and approves it, then marks it reimbursed as accounts
 * payable. axe-core finds no serious or critical violation on any page; at 390 px nothing scrolls sideways.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deflateSync } from 'node:zlib'
import type { BrowserContext, Page } from 'playwright-core'
import { accessible, fitsPhone, noChromium } from '../helpers/browser.ts'
import { lastJson, useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ domain: 'expenses' })

async function checked(context: BrowserContext, page: Page) {
  await accessible(context, page.url())
  await fitsPhone(page)
}

/** The CRC-32 of PNG chunks (ISO 3309). */
function crc32(bytes: Buffer): number {
  let c = ~0
  for (const byte of bytes) {
    c ^= byte
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1
  }
  return ~c >>> 0
}

/** A `size`×`size` PNG of one colour: what a phone's photo of a receipt stands for here. */
function receiptPng(size: number, [r, g, b]: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4)
    head.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([head, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits a channel, RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => [r, g, b]).flat())])
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** The receipt images on the page, each loaded (a broken image has no natural width). */
const loadedReceipts = (page: Page) =>
  page
    .locator('img.receipt')
    .evaluateAll((images) => images.map((i) => (i as unknown as { naturalWidth: number }).naturalWidth))

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
    // A photo of each line's receipt, from the line's own form (the phone offers its camera: `capture`).
    const colours: [number, number, number][] = [
      [250, 240, 200],
      [200, 230, 250],
    ]
    for (const [i, colour] of colours.entries()) {
      const input = page.getByLabel(new RegExp(`^Receipt for line ${i + 1}:`))
      assert.equal(await input.getAttribute('accept'), 'image/*,application/pdf')
      assert.equal(await input.getAttribute('capture'), '')
      await input.setInputFiles({ name: `receipt-${i + 1}.png`, mimeType: 'image/png', buffer: receiptPng(24, colour) })
      await page.getByRole('button', { name: `Attach the receipt of line ${i + 1}` }).click()
      await page.waitForURL(/done=receipt/)
      assert.match(await page.locator('main').innerText(), /The receipt is attached to its line\./)
    }
    assert.deepEqual(await loadedReceipts(page), [24, 24], 'both receipts shown inline')
    assert.match(await page.locator('main').innerText(), /receipt-1\.png[\s\S]*PNG image/)
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
    await admin.page.waitForURL(/\/console\/approvals\/\d+$/)
    assert.match(await admin.page.locator('main').innerText(), /Airport taxi/)
    assert.deepEqual(await loadedReceipts(admin.page), [24, 24], 'the approver sees each line’s receipt inline')
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
