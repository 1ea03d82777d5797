/**
 * Budgets in the console over HTTP, with budgets and a request made through the API in the test: a Report
 * holder at location A sees A's budget (its account, figures, over-budget marking, the bar) and not B's, opens it
 * and finds its ledger entry linked to the request's page; the budget's owner, holding neither Manage nor Report,
 * sees Budgets and Approvals in the menu and their budget; someone with none of these gets 403 for the list and
 * 404 for a budget, and no Budgets entry in the menu. The demo's budgets: one near its limit, one over.
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { operatorActor } from '../src/access/actor.ts'
import { listAccounts } from '../src/accounts/service.ts'
import { listBudgets } from '../src/budgets/service.ts'
import { resetPasswordLink } from '../src/tenants/service.ts'
import { DEMO_ACCOUNTS } from '../src/seed/demo-budgets.ts'
import { sampleTenant, useTestApp } from './helpers/app.ts'
import { draft, setUp, submit, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, throughLink, type Browser } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: Setup
let reporter: Browser
let owner: Browser
let outsider: Browser
let planner: Browser
let overA: { id: number; name: string }
let atB: { id: number; name: string }
let requestId = 0
let ready = false

const signIn = async (name: string) =>
  throughLink(
    ctx,
    s.tenant.host,
    await resetPasswordLink(ctx.database.db, s.tenant.domain, `${name}@${s.tenant.domain}.test`),
  )

async function created(url: string, payload: object) {
  const r = await s.admin({ method: 'POST', url, payload })
  assert.equal(r.statusCode, 201, r.body)
  return r.json().data as { id: number; name: string }
}

const year = new Date().getUTCFullYear()

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  const report = await roleWith(ctx, s.tenant, 'Reporter', ['nav_report'], 8)
  await s.user('reporter', report, s.A)
  const ownerPerson = await s.user('owner', s.roles.Requester, s.B)
  await s.user('outsider', s.roles.Requester, s.A)
  await s.user('planner', await roleWith(ctx, s.tenant, 'Budget manager', ['nav_manage'], 8), s.A)
  const requester = await s.user('requester', s.roles.Requester, s.A)
  const account = await created('/api/v3/accounts/', { code: '6100', name: 'Office supplies' })
  const period = { period_start: `${year}-01-01`, period_end: `${year}-12-31` }
  overA = await created('/api/v3/budgets/', {
    name: 'Supplies at A',
    location: s.A,
    account: account.id,
    amount: '100',
    action: 'warn',
    owner: ownerPerson.profileId,
    ...period,
  })
  atB = await created('/api/v3/budgets/', {
    name: 'Branch B budget',
    location: s.B,
    amount: '50',
    action: 'warn',
    ...period,
  })
  const r = await draft(requester.api, s.A, [
    { description: 'Paper', quantity: '3', unit_price: '40', account: account.id },
  ] as never)
  requestId = r.id
  const sent = await submit(requester.api, r.id)
  assert.equal(sent.statusCode, 200, sent.body)
  reporter = await signIn('reporter')
  owner = await signIn('owner')
  outsider = await signIn('outsider')
  planner = await signIn('planner')
})

test('the list: what a Report holder may read, with figures, the bar and over budget in words', async () => {
  const page = await reporter.get('/console/budgets')
  assert.equal(page.statusCode, 200, page.body)
  assert.match(page.body, /<a href="\/console\/budgets"[^>]*aria-current="page"/, 'Budgets is in the menu, current')
  assert.match(page.body, new RegExp(`<a href="/console/budgets/${overA.id}">Supplies at A</a\\s*>`))
  assert.doesNotMatch(page.body, /Branch B budget/, 'a budget at a location without Report is not listed')
  assert.match(page.body, /6100 Office supplies/, 'the account it covers')
  assert.match(page.body, /every department/)
  assert.match(page.body, /100\.00 USD/, 'the amount')
  assert.match(page.body, /120\.00 USD/, 'committed: the request was approved at once')
  assert.match(page.body, /Over budget by 20\.00 USD/)
  assert.match(page.body, /<meter [^>]*value="100"/, 'the bar is full when over')
  assert.match(page.body, /120\.0 % used — over budget/)
  assert.match(page.body, /1 budget is over on this page/)
  const none = await reporter.get('/console/budgets?search=nothing-like-this')
  assert.equal(none.statusCode, 200)
  assert.match(none.body, /No budget matches “nothing-like-this”/)
})

test('a budget’s page: its figures and its ledger entries, each linked to its document', async () => {
  const page = await reporter.get(`/console/budgets/${overA.id}`)
  assert.equal(page.statusCode, 200, page.body)
  assert.match(page.body, /<h1>Budget: Supplies at A<\/h1>/)
  assert.match(page.body, /Over budget by 20\.00 USD: more is counted against it than its amount/)
  assert.match(page.body, /Warn: the document proceeds with a warning/)
  assert.match(page.body, /owner Tester/, 'the owner by name')
  assert.match(page.body, new RegExp(`<a href="/console/requests/${requestId}">Request #${requestId}</a>`))
  assert.match(page.body, /Committed/)
  assert.match(page.body, /120\.00 USD at 1\.00/, 'the original amount and its rate')
  const other = await reporter.get(`/console/budgets/${atB.id}`)
  assert.equal(other.statusCode, 404, 'a budget at a location without Report is not found')
  assert.equal((await reporter.get('/console/budgets/999999999')).statusCode, 404)
})

test('the owner, without Manage or Report, sees Budgets and Approvals and reads their budget only', async () => {
  const list = await owner.get('/console/budgets')
  assert.equal(list.statusCode, 200, list.body)
  assert.match(list.body, /<a href="\/console\/budgets"/, 'Budgets is in the owner’s menu')
  assert.match(list.body, /<a href="\/console\/approvals"/, 'Approvals: an owner may become a candidate')
  assert.match(list.body, /Supplies at A/)
  assert.doesNotMatch(list.body, /Branch B budget/, 'owning one budget reads that one, not B’s (the owner’s home)')
  assert.equal((await owner.get(`/console/budgets/${overA.id}`)).statusCode, 200)
  assert.equal((await owner.get(`/console/budgets/${atB.id}`)).statusCode, 404)
})

test('someone who may read no budget: 403 for the list, 404 for a budget, no Budgets in the menu', async () => {
  const list = await outsider.get('/console/budgets')
  assert.equal(list.statusCode, 403, list.body)
  assert.match(list.body, /Manage or Report permission/)
  assert.equal((await outsider.get(`/console/budgets/${overA.id}`)).statusCode, 404)
  const home = await outsider.get('/console/')
  assert.equal(home.statusCode, 200)
  assert.doesNotMatch(home.body, /href="\/console\/budgets"/)
  assert.doesNotMatch(home.body, /href="\/console\/approvals"/, 'and no Approvals: not a candidate in any way')
})

test('Manage at a location: creates a budget there from the form, edits it, deletes it; a refusal names the field', async () => {
  const list = await planner.get('/console/budgets')
  assert.equal(list.statusCode, 200, list.body)
  assert.match(list.body, /<a class="button" href="\/console\/budgets\/new">New budget<\/a>/)
  assert.doesNotMatch((await reporter.get('/console/budgets')).body, /New budget/, 'Report alone creates nothing')
  const form = await planner.get('/console/budgets/new')
  assert.equal(form.statusCode, 200, form.body)
  const locations = /<select[^>]*name="location"[^>]*>([\s\S]*?)<\/select>/.exec(form.body)![1]!
  assert.match(locations, new RegExp(`<option value="${s.A}"`), 'its location is on offer')
  assert.doesNotMatch(locations, new RegExp(`<option value="${s.B}"`), 'a location without Manage is not')
  assert.doesNotMatch(locations, /Every location/, 'every location is a superuser’s')
  const fields = {
    name: 'Printing',
    location: String(s.A),
    department: '',
    account: '',
    period_start: `${year}-01-01`,
    period_end: `${year}-12-31`,
    amount: 'lots',
    action: 'approve',
    owner: '',
    active: 'on',
  }
  const bad = await planner.submit('/console/budgets/new', '/console/budgets/new', fields)
  assert.equal(bad.statusCode, 400, bad.body)
  assert.match(bad.body, /There is a problem/)
  assert.match(bad.body, /id="f-amount-error"/, 'the amount is named')
  assert.match(bad.body, /value="lots"/, 'what was typed is kept')
  const noOwner = await planner.submit('/console/budgets/new', '/console/budgets/new', { ...fields, amount: '300' })
  assert.equal(noOwner.statusCode, 400, noOwner.body)
  assert.match(
    noOwner.body,
    /id="f-owner-error"[^>]*>is required when action is “approve”|id="f-owner-error"[^>]*>is required when action is &quot;approve&quot;/,
  )
  const made = await planner.submit('/console/budgets/new', '/console/budgets/new', {
    ...fields,
    amount: '300',
    action: 'block',
  })
  assert.equal(made.statusCode, 303, made.body)
  const at = made.headers.location as string
  assert.match(at, /^\/console\/budgets\/\d+\?done=created$/)
  const id = Number(/budgets\/(\d+)/.exec(at)![1])
  const shown = await planner.get(at)
  assert.match(shown.body, /The budget is created/)
  assert.match(shown.body, /Block: the document is refused/)
  assert.match(shown.body, /300\.00 USD/)
  assert.match(shown.body, new RegExp(`href="/console/budgets/${id}/edit"`))
  const edit = await planner.get(`/console/budgets/${id}/edit`)
  assert.match(edit.body, /value="300\.00"/, 'the form shows the budget')
  const saved = await planner.submit(`/console/budgets/${id}/edit`, `/console/budgets/${id}/edit`, {
    ...fields,
    amount: '500',
    action: 'warn',
  })
  assert.equal(saved.statusCode, 303, saved.body)
  const after = await planner.get(`/console/budgets/${id}?done=saved`)
  assert.match(after.body, /Your changes are saved/)
  assert.match(after.body, /500\.00 USD/)
  const read = await reporter.get(`/console/budgets/${id}`)
  assert.equal(read.statusCode, 200)
  assert.doesNotMatch(read.body, /\/edit"/, 'a reader gets no Edit')
  assert.equal((await reporter.get(`/console/budgets/${id}/edit`)).statusCode, 403, 'nor the form')
  assert.equal((await reporter.get('/console/budgets/new')).statusCode, 403)
  const refused = await reporter.submit(`/console/budgets/${id}`, `/console/budgets/${id}/delete`, {})
  assert.equal(refused.statusCode, 403, 'the service refuses a reader’s write')
  const gone = await planner.submit(`/console/budgets/${id}`, `/console/budgets/${id}/delete`, {})
  assert.equal(gone.statusCode, 303, gone.body)
  assert.equal(gone.headers.location, '/console/budgets?done=deleted')
  assert.equal((await planner.get(`/console/budgets/${id}`)).statusCode, 404)
})

test('the demo’s budgets: the Head Office’s near its limit, the East Warehouse’s over; its owner sees them', async () => {
  const demo = await sampleTenant(ctx, undefined, { documents: true })
  const operator = operatorActor({ id: demo.tenantId, domain: demo.domain })
  const accounts = await listAccounts(ctx.database.db, operator, { page: 1, page_size: 100 })
  assert.deepEqual(
    accounts.rows.map((a) => a.code).sort(),
    DEMO_ACCOUNTS.map((a) => a.code),
  )
  const list = (await listBudgets(ctx.database.db, operator, { page: 1, page_size: 100 })).rows
  const byName = new Map(list.map((b) => [b.name, b]))
  const office = byName.get(`Head Office ${year}`)!
  assert.ok(Number(office.used_percent) >= 80 && Number(office.used_percent) < 100, `near: ${office.used_percent}`)
  const east = byName.get(`East Warehouse ${year}`)!
  assert.equal(east.action, 'approve')
  assert.match(east.available, /^-/, 'over')
  assert.equal(list.length, 4)
  const manager = await throughLink(
    ctx,
    `${demo.domain}.${BASE_DOMAIN}`,
    await resetPasswordLink(ctx.database.db, demo.domain, 'manager@example.com'),
  )
  const page = await manager.get('/console/budgets')
  assert.equal(page.statusCode, 200, page.body)
  assert.match(page.body, new RegExp(`Head Office ${year}`))
  assert.match(page.body, new RegExp(`East Warehouse ${year}[\\s\\S]*Over budget by`))
})
