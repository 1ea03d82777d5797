/**
 * Home (/console/) over HTTP: the counts that wait for the signed-in person, each a link to its list; and, for a
 * reader of reports, this month's spend against the budgets that cover it (a budget made in the test, then
 * shown with what is spent and what is left). Someone who may not read reports sees no spend card.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'
import { BASE_DOMAIN, throughLink } from './helpers/security.ts'
import { resetPasswordLink } from '../src/tenants/service.ts'

const ctx = useTestApp()

test('Home counts what waits and shows this month’s spend against budgets to a reader of reports only', async () => {
  const admin = await signedIn(ctx, 'admin')
  const tenant = admin.tenant
  const host = `${tenant.domain}.${BASE_DOMAIN}`
  const signIn = async (email: string) =>
    throughLink(ctx, host, await resetPasswordLink(ctx.database.db, tenant.domain, email))

  const now = new Date()
  const month = now.toISOString().slice(0, 7)
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).toISOString().slice(0, 10)
  const name = `Home card budget ${Date.now()}`
  const created = await admin.api({
    method: 'POST',
    url: '/api/v3/budgets/',
    payload: { name, period_start: `${month}-01`, period_end: last, amount: '1000.00', action: 'warn' },
  })
  assert.equal(created.statusCode, 201, created.body)

  // Rita's request waits for the administrator's approval (the sample tenant's rule at the head office).
  const rita = await signedIn(ctx, 'requester', tenant)
  const [headOffice] = (await admin.api({ method: 'GET', url: '/api/v3/locations/?order_by=id' })).json().data
  const draft = await rita.api({
    method: 'POST',
    url: '/api/v3/requests/',
    payload: {
      location: headOffice.id,
      description: 'Desks',
      lines: [{ description: 'Desk', quantity: '1', unit_price: '1500' }],
    },
  })
  assert.equal(draft.statusCode, 201, draft.body)
  const submitted = await rita.api({ method: 'POST', url: `/api/v3/requests/${draft.json().data.id}/submit/` })
  assert.equal(submitted.statusCode, 200, submitted.body)

  const boss = await signIn('admin@example.com')
  const home = await boss.get('/console/')
  assert.equal(home.statusCode, 200, home.body)
  assert.match(home.body, /<h2 id="spend-this-month">Spend in \w+ \d{4}: [\d,.]+ USD<\/h2>/)
  assert.match(home.body, new RegExp(`<span class="budget-name">${name}</span>`))
  // Rita's pending 1,500 request counts against it (the budget covers every location and account): over by 500.
  assert.match(home.body, /150\.0 % used/)
  assert.match(
    home.body,
    /0\.00 spent and 1,500\.00 committed of 1,000\.00 USD;\s+<strong>over by 500\.00 USD<\/strong>/,
  )
  assert.match(home.body, /href="\/console\/reports\?report=budgets"/)
  assert.match(
    home.body,
    /<a href="\/console\/approvals[^"]*"\s*><span class="big">1<\/span>\s*request or purchase order to approve<\/a/,
  )

  const requester = await signIn('requester@example.com')
  const plain = await requester.get('/console/')
  assert.equal(plain.statusCode, 200, plain.body)
  assert.doesNotMatch(plain.body, /spend-this-month|Spend in /)
  assert.match(
    plain.body,
    /href="\/console\/requests\?mine=1&amp;status=pending"\s*><span class="big">1<\/span>\s*waiting for approval/,
  )
})
