/**
 * The request form's live budget check (DECISIONS, "Accounts, budgets and the commitment ledger": "The console's
 * request form shows it while the person types, before they submit") over HTTP, with budgets, accounts and a
 * request that already counts made through the API in the test: `POST /console/budgets/check` answers the script
 * with a sentence per budget the lines touch — what it has left, what this request counts, and whether that warns,
 * blocks or needs the owner's approval — with a foreign-currency line converted at the currency's rate; without
 * JavaScript ("Check budgets") it shows the form again with the same values and the panel filled. Hostile values are
 * 4xx sentences, never 5xx; a location where the person may not request is 403; nothing is ever written (ledger
 * entries, requests and events counted before and after). The form offers each line's account, saves it, and shows
 * it again when the draft is edited.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { resetPasswordLink } from '../src/tenants/service.ts'
import { useTestApp } from './helpers/app.ts'
import { draft, setUp, submit, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, throughLink, type Browser } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: Setup
let requester: Browser
let supplies: { id: number; code: string }
let travel: { id: number; code: string }
let ready = false

const year = new Date().getUTCFullYear()
const period = { period_start: `${year}-01-01`, period_end: `${year}-12-31` }

async function created(url: string, payload: object) {
  const r = await s.admin({ method: 'POST', url, payload })
  assert.equal(r.statusCode, 201, r.body)
  return r.json().data as { id: number; name: string; code: string }
}

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  const person = await s.user('rita', s.roles.Requester, s.A)
  const owner = await s.user('olga', s.roles.Requester, s.B)
  supplies = await created('/api/v3/accounts/', { code: '6100', name: 'Office supplies' })
  travel = await created('/api/v3/accounts/', { code: '6400', name: 'Travel' })
  await created('/api/v2/currencies/', { name: 'EUR', rate: '0.92' })
  await created('/api/v3/budgets/', {
    name: 'Supplies at A',
    location: s.A,
    account: supplies.id,
    amount: '100',
    action: 'block',
    ...period,
  })
  await created('/api/v3/budgets/', {
    name: 'All of A',
    location: s.A,
    amount: '1000',
    action: 'approve',
    owner: owner.profileId,
    ...period,
  })
  await created('/api/v3/budgets/', {
    name: 'A department',
    location: s.A,
    department: s.departmentA,
    amount: '50',
    action: 'warn',
    ...period,
  })
  // What already counts: 30.00 committed against the supplies budget (no rule: approved at once).
  const r = await draft(person.api, s.A, [
    { description: 'Paper', quantity: '3', unit_price: '10', account: supplies.id },
  ] as never)
  const sent = await submit(person.api, r.id)
  assert.equal(sent.statusCode, 200, sent.body)
  const token = await resetPasswordLink(ctx.database.db, s.tenant.domain, `rita@${s.tenant.domain}.test`)
  requester = await throughLink(ctx, s.tenant.host, token)
})

interface State {
  outcome: string
  summary: string
  items: { tone: string; text: string }[]
}

/** What was written so far: ledger entries, requests and events of the tenant. */
async function written() {
  const count = async (table: 'ledger_entries' | 'purchase_requests' | 'events') =>
    Number(
      (
        await ctx.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('tenant_id', '=', s.tenant.tenantId)
          .executeTakeFirstOrThrow()
      ).n,
    )
  return {
    entries: await count('ledger_entries'),
    requests: await count('purchase_requests'),
    events: await count('events'),
  }
}

/** The request form's fields: location A, the lines given (`[quantity, unit_price, account id or '']`). */
function fields(lines: [string, string, string][], top: Record<string, string> = {}) {
  const form: Record<string, string> = { rows: String(Math.max(3, lines.length)), location: String(s.A), ...top }
  lines.forEach(([quantity, price, account], i) => {
    form[`lines.${i}.description`] = `Item ${i + 1}`
    form[`lines.${i}.quantity`] = quantity
    form[`lines.${i}.unit_price`] = price
    form[`lines.${i}.account`] = account
  })
  return form
}

/** The script's question: the form posted with its CSRF token, JSON asked for. */
async function live(form: Record<string, string>, status = 200): Promise<State> {
  const response = await requester.submit('/console/requests/new', '/console/budgets/check', form, {
    accept: 'application/json',
  })
  assert.equal(response.statusCode, status, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/, response.body.slice(0, 2000))
  assert.equal(response.headers['cache-control'], 'no-store')
  return response.json<State>()
}

const textOf = (state: State) => [state.summary, ...state.items.map((i) => i.text)].join('\n')

describe('the live budget check of the request form', () => {
  test('the form: each line’s account, the live region beside the running total, and “Check budgets”', async () => {
    const page = await requester.get('/console/requests/new')
    assert.equal(page.statusCode, 200, page.body)
    assert.match(page.body, /<select[^>]*id="f-lines-0-account"[^>]*name="lines\.0\.account"/)
    assert.match(page.body, new RegExp(`<option value="${supplies.id}"\\s*>6100 Office supplies</option>`))
    assert.match(page.body, /id="running-total"[\s\S]*<div\s+id="budget-check"[^>]*aria-live="polite"/)
    assert.match(page.body, /data-budget-check="\/console\/budgets\/check"/)
    assert.match(page.body, /<button[^>]*formaction="\/console\/budgets\/check"[^>]*>\s*Check budgets\s*<\/button>/)
  })

  test('each budget the lines touch: what it has left, what this request counts, and what it would do', async () => {
    const before = await written()
    const over = await live(fields([['2', '50', String(supplies.id)]]))
    assert.equal(over.outcome, 'over')
    assert.match(over.summary, /This request would count against 2 budgets; 1 of them blocks it\. Amounts are in USD/)
    const text = textOf(over)
    assert.match(
      text,
      /Budget “Supplies at A” has 70\.00 USD left; this request counts 100\.00 USD against it, 30\.00 USD more than it has\. This budget blocks: the request cannot be submitted/,
    )
    assert.match(
      text,
      /Budget “All of A” has 970\.00 USD left; this request counts 100\.00 USD against it and stays within it, leaving 870\.00 USD\./,
    )
    assert.doesNotMatch(text, /A department/, 'a budget of a department the request does not name is not touched')
    assert.deepEqual(over.items.map((i) => i.tone).sort(), ['block', 'within'])

    // Within every budget: an account no budget names but "All of A".
    const within = await live(fields([['1', '20', String(travel.id)]]))
    assert.equal(within.outcome, 'ok')
    assert.match(within.summary, /count against 1 budget\./)

    // The department: its warn budget, and an amount that takes "All of A" over (approve: the owner's step).
    const department = await live(fields([['10', '100', '']], { department: String(s.departmentA) }))
    const said = textOf(department)
    assert.match(
      said,
      /Budget “A department” has 50\.00 USD left; this request counts 1,000\.00 USD against it, 950\.00 USD more than it has\. You can still submit it: the request will carry a warning/,
    )
    assert.match(
      said,
      /Budget “All of A” has 970\.00 USD left; [^\n]*30\.00 USD more than it has\. Submitting it adds a step[^\n]*owner must approve it/,
    )
    assert.deepEqual(await written(), before, 'checking writes nothing')
  })

  test('a line in a foreign currency counts in the base currency at the currency’s rate', async () => {
    const state = await live(fields([['10', '9.20', String(supplies.id)]], { currency: 'EUR' }))
    assert.match(state.summary, /converted from EUR at today’s rate \(0\.92\d* EUR per USD\)/)
    assert.match(
      textOf(state),
      /“Supplies at A” has 70\.00 USD left; this request counts 100\.00 USD against it, 30\.00 USD more/,
    )
  })

  test('nothing to check yet: no location, no line with both a quantity and a unit price; removed lines count nothing', async () => {
    assert.match((await live(fields([['2', '50', '']], { location: '' }))).summary, /Choose a location/)
    const none = await live(
      fields([
        ['2', '', ''],
        ['', '3', ''],
      ]),
    )
    assert.equal(none.outcome, 'idle')
    assert.match(none.summary, /Type a quantity and a unit price/)
    const removed = await live({ ...fields([['2', '50', String(supplies.id)]]), 'lines.0.remove': 'on' })
    assert.equal(removed.outcome, 'idle')
  })

  test('hostile values: a 4xx with sentences saying what to fix, never a 5xx, nothing written', async () => {
    const before = await written()
    const cases: [Record<string, string>, number, RegExp][] = [
      [fields([['2', '50', '']], { location: 'abc' }), 400, /Choose a location from the list/],
      [fields([['2', '50', '']], { location: '999999999' }), 400, /Choose a location from the list/],
      [fields([['2', '50', '']], { location: '99999999999' }), 400, /Choose a location from the list/],
      [fields([['2', '50', '']], { location: String(s.B) }), 403, /may not make requests at this location/],
      [fields([['2', '50', '']], { department: '<script>' }), 400, /Choose a department/],
      [fields([['2', '50', '']], { department: '2147483647' }), 400, /Choose a department/],
      [fields([['2', '50', '']], { currency: 'ZZZ' }), 400, /Choose a currency/],
      [fields([['2', '50', '']], { currency: "'; drop table x; --" }), 400, /Choose a currency/],
      [fields([['1e309', '50', '']]), 400, /Line 1: write the quantity as a number/],
      [fields([['2', '-5', '']]), 400, /Line 1: write the unit price as a number/],
      [
        fields([
          ['2', '5', ''],
          ['1', '1', 'x'],
        ]),
        400,
        /Line 2: choose an account/,
      ],
      [fields([['9'.repeat(16), '9'.repeat(16) + '.9999', '']]), 200, /This request would count against/],
      [{ ...fields([['2', '50', '']]), rows: '-7' }, 200, /count against/],
      [{ ...fields([['2', '50', '']]), description: 'x'.repeat(2001) }, 400, /Shorten it/],
    ]
    for (const [form, status, sentence] of cases) {
      const state = await live(form, status)
      assert.match(textOf(state), sentence, JSON.stringify(form).slice(0, 200))
      assert.doesNotMatch(textOf(state), /must NOT|must match|must be integer|<script>/)
    }
    // A NUL anywhere is refused by the app's text guard before the page (a 400 page of its own).
    const nul = await requester.submit('/console/requests/new', '/console/budgets/check', {
      ...fields([['2', '50', '']]),
      currency: 'EUR\u0000',
    })
    assert.equal(nul.statusCode, 400, nul.body)
    assert.deepEqual(await written(), before)
    const forged = await requester.post('/console/budgets/check', fields([['2', '50', '']]), {
      accept: 'application/json',
    })
    assert.equal(forged.statusCode, 403, 'without the form’s CSRF token')
  })

  test('without JavaScript: “Check budgets” shows the form again with the same values and the panel filled', async () => {
    const before = await written()
    const form = { ...fields([['2', '50', String(supplies.id)]]), description: 'Chairs <b>now</b>', intent: 'check' }
    const page = await requester.submit('/console/requests/new', '/console/budgets/check', form)
    assert.equal(page.statusCode, 200, page.body)
    assert.match(page.body, /^<!doctype html>/i)
    assert.match(page.body, /<form method="post" action="\/console\/requests\/new"/)
    assert.match(page.body, /Chairs &lt;b&gt;now&lt;\/b&gt;/, 'what was typed is kept (as text)')
    assert.match(page.body, /name="lines\.0\.quantity"[^>]*value="2"/)
    assert.match(page.body, new RegExp(`<option value="${supplies.id}" selected`))
    assert.match(page.body, /data-outcome="over"/)
    assert.match(page.body, /<li class="budget-block">Budget “Supplies at A” has 70\.00 USD left/)
    const bad = await requester.submit('/console/requests/new', '/console/budgets/check', {
      ...form,
      'lines.0.quantity': 'lots',
    })
    assert.equal(bad.statusCode, 400)
    assert.match(bad.body, /Line 1: write the quantity as a number/)
    assert.match(bad.body, /value="lots"/)
    assert.deepEqual(await written(), before, 'nothing is saved')
  })

  test('the account is saved from the form, shown when the draft is edited, and its check keeps the edit form', async () => {
    const saved = await requester.submit('/console/requests/new', '/console/requests/new', {
      ...fields([['1', '10', String(travel.id)]]),
      intent: 'save',
    })
    assert.equal(saved.statusCode, 303, saved.body)
    const id = Number(/requests\/(\d+)/.exec(saved.headers.location!)![1])
    const read = await s.admin({ method: 'GET', url: `/api/v3/requests/${id}/` })
    assert.deepEqual(read.json().data.lines[0].account, { id: travel.id, code: '6400', name: 'Travel' })
    const edit = await requester.get(`/console/requests/${id}/edit`)
    assert.match(edit.body, new RegExp(`<option value="${travel.id}" selected`))
    assert.match(edit.body, new RegExp(`formaction="/console/budgets/check\\?request=${id}"`))
    const checked = await requester.submit(`/console/requests/${id}/edit`, `/console/budgets/check?request=${id}`, {
      ...fields([['1', '10', String(travel.id)]]),
      intent: 'check',
    })
    assert.equal(checked.statusCode, 200, checked.body)
    assert.match(checked.body, new RegExp(`action="/console/requests/${id}/edit"`))
    assert.match(checked.body, /<h1>Edit request #\d+<\/h1>/)
    const unknown = await requester.submit(`/console/requests/${id}/edit`, '/console/budgets/check?request=99999999', {
      ...fields([['1', '10', '']]),
    })
    assert.equal(unknown.statusCode, 404)
  })
})
