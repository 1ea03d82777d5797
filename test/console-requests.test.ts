/**
 * Requests and approvals in the console over HTTP, with the data made in the test (a requester, an
 * approver, a rule): a draft made with the lines editor (blank lines ignored, a mistake shown at its line
 * with what was typed kept, "Add a line" writing nothing), submitted, then approved from the approver's
 * inbox; a rejection without a comment is a 400 shown in the form; a second decision is a clear 409 message;
 * another user's request is a 404; delegation on My account routes the inbox "on behalf of"; hostile input
 * gets a 4xx, never a 5xx.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { resetPasswordLink } from '../src/tenants/service.ts'
import { useTestApp } from './helpers/app.ts'
import { rule, setUp, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, throughLink, type Browser } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })

let s: Setup
let requester: Person & { b: Browser }
let approver: Person & { b: Browser }
let outsider: Person & { b: Browser }
let vendorId: number

/** A user made through the API, signed in to the console through a set-password link. */
async function person(name: string, role: number, home: number | null): Promise<Person & { b: Browser }> {
  const made = await s.user(name, role, home)
  const token = await resetPasswordLink(ctx.database.db, s.tenant.domain, `${name}@${s.tenant.domain}.test`)
  return { ...made, b: await throughLink(ctx, s.tenant.host, token) }
}

const csrf = async (b: Browser, url: string) => {
  const page = await b.get(url)
  assert.equal(page.statusCode, 200, page.body)
  return b.csrfOf(page.body)!
}

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  requester = await person('rita', s.roles.Requester, s.A)
  approver = await person('abe', s.roles.Approver, s.A)
  outsider = await person('otto', s.roles.Requester, s.B)
  await rule(s.admin, { location: s.A, step: 1, approvers: [approver.profileId] })
  const vendor = await s.admin({
    method: 'POST',
    url: '/api/v3/vendors/',
    payload: { name: 'Chairs & Co', type: 3 },
  })
  assert.equal(vendor.statusCode, 201, vendor.body)
  vendorId = vendor.json().data.id
})

/** Creates a draft through the console form; returns its detail URL. */
async function draftThroughForm(b: Browser, lines: Record<string, string>, description = 'Chairs') {
  const token = await csrf(b, '/console/requests/new')
  const saved = await b.post('/console/requests/new', {
    _csrf: token,
    rows: '3',
    location: String(s.A),
    description,
    intent: 'save',
    ...lines,
  })
  assert.equal(saved.statusCode, 303, saved.body)
  return saved.headers.location!.split('?')[0]!
}

describe('requests and approvals in the console', () => {
  test('the menu shows Requests and Approvals only to those who hold the permissions', async () => {
    const mine = (await requester.b.get('/console/account')).body
    assert.match(mine, /href="\/console\/requests"/)
    assert.doesNotMatch(mine, /href="\/console\/approvals"/)
    // Someone without Request anywhere has no menu entry and is told so at the form.
    const watcher = await person('wes', s.roles.Approver, null)
    assert.doesNotMatch((await watcher.b.get('/console/account')).body, /href="\/console\/requests"/)
    const refused = await watcher.b.get('/console/requests/new')
    assert.equal(refused.statusCode, 403)
    assert.match(refused.body, /you hold it at none/)
    const theirs = (await approver.b.get('/console/account')).body
    assert.match(theirs, /href="\/console\/approvals"/)
  })

  test('create with the lines editor, submit, approve from the inbox', async () => {
    const form = await requester.b.get('/console/requests/new')
    assert.equal(form.statusCode, 200)
    assert.match(form.body, /<label for="f-location"/)
    assert.match(form.body, /<label for="f-lines-0-quantity"/)
    assert.match(form.body, /Chairs &amp; Co/, 'vendors are offered')
    const token = requester.b.csrfOf(form.body)!

    // "Add a line" shows the form again with one more line and what was typed, and writes nothing.
    const added = await requester.b.post('/console/requests/new', {
      _csrf: token,
      rows: '3',
      location: String(s.A),
      description: 'Desk chairs',
      'lines.0.description': 'Chair',
      'lines.0.quantity': '4',
      'lines.0.unit_price': '120.50',
      intent: 'add',
    })
    assert.equal(added.statusCode, 200)
    assert.match(added.body, /name="lines\.3\.quantity"/, 'a fourth line')
    assert.match(added.body, /value="Desk chairs"|>Desk chairs</)
    assert.match(added.body, /value="120.50"/)

    // A mistake on the second line is shown at that line; the values are kept; nothing is written.
    const bad = await requester.b.post('/console/requests/new', {
      _csrf: token,
      rows: '4',
      location: String(s.A),
      description: 'Desk chairs',
      'lines.0.description': 'Chair',
      'lines.0.quantity': '4',
      'lines.0.unit_price': '120.50',
      'lines.2.description': 'Footrest',
      'lines.2.quantity': 'two',
      'lines.2.unit_price': '15',
      intent: 'save',
    })
    assert.equal(bad.statusCode, 400, bad.body)
    assert.match(bad.body, /There is a problem/)
    assert.match(bad.body, /id="f-lines-2-quantity-error"/, 'the error stands at the line it belongs to')
    assert.match(bad.body, /value="two"/)
    const none = await requester.b.get('/console/requests?search=Desk')
    assert.match(none.body, /No request matches/)

    const detail = await draftThroughForm(requester.b, {
      'lines.0.description': 'Chair',
      'lines.0.vendor': String(vendorId),
      'lines.0.quantity': '4',
      'lines.0.unit_price': '120.50',
      'lines.1.description': 'Footrest',
      'lines.1.quantity': '2',
      'lines.1.unit_price': '15',
    })
    assert.match(detail, /^\/console\/requests\/\d+$/)
    const page = await requester.b.get(detail)
    assert.match(page.body, /Draft/)
    assert.match(page.body, /512 USD|512\.00 USD/)
    assert.match(page.body, /Chairs &amp; Co/)
    assert.match(page.body, /Submit for approval/)

    // Edit while draft: remove the second line.
    const edit = await requester.b.get(`${detail}/edit`)
    assert.equal(edit.statusCode, 200)
    assert.match(edit.body, /value="Footrest"/)
    const edited = await requester.b.post(`${detail}/edit`, {
      _csrf: token,
      rows: '3',
      location: String(s.A),
      description: 'Desk chairs',
      'lines.0.description': 'Chair',
      'lines.0.quantity': '4',
      'lines.0.unit_price': '120.50',
      'lines.1.description': 'Footrest',
      'lines.1.quantity': '2',
      'lines.1.unit_price': '15',
      'lines.1.remove': 'on',
      intent: 'save',
    })
    assert.equal(edited.statusCode, 303, edited.body)
    assert.match((await requester.b.get(detail)).body, /482 USD|482\.00 USD/)

    const submitted = await requester.b.post(`${detail}/submit`, { _csrf: token })
    assert.equal(submitted.statusCode, 303)
    const pending = (await requester.b.get(submitted.headers.location!)).body
    assert.match(pending, /The request is submitted/)
    assert.match(pending, /Waiting for approval/)
    assert.match(pending, /abe Tester/, 'the chain names the candidate')
    assert.doesNotMatch(pending, /href="\/console\/requests\/\d+\/edit"/, 'no edit once submitted')
    // Submitting again is a clear message on the request's page.
    const again = await requester.b.post(`${detail}/submit`, { _csrf: token })
    assert.equal(again.statusCode, 409)
    assert.match(again.body, /only a draft request can be submitted/)
    assert.match(again.body, /Request #\d+/)

    const inbox = await approver.b.get('/console/approvals')
    assert.equal(inbox.statusCode, 200)
    const approvalUrl = /href="(\/console\/approvals\/\d+)"/.exec(inbox.body)?.[1]
    assert.ok(approvalUrl, inbox.body)
    assert.match(inbox.body, /Desk chairs/)
    const decision = await approver.b.get(approvalUrl)
    assert.match(decision.body, /<label for="f-comment"/)
    const approverToken = approver.b.csrfOf(decision.body)!

    const noComment = await approver.b.post(approvalUrl, { _csrf: approverToken, decision: 'reject', comment: '  ' })
    assert.equal(noComment.statusCode, 400)
    assert.match(noComment.body, /id="f-comment-error"/)
    assert.match(noComment.body, /There is a problem/)

    const approved = await approver.b.post(approvalUrl, { _csrf: approverToken, decision: 'approve', comment: 'Fine' })
    assert.equal(approved.statusCode, 303)
    assert.match((await approver.b.get(approved.headers.location!)).body, /Approved\. The request moves on/)
    const final = (await requester.b.get(detail)).body
    assert.match(final, /<dd>Approved<\/dd>/)
    assert.match(final, /Fine/)

    const twice = await approver.b.post(approvalUrl, { _csrf: approverToken, decision: 'reject', comment: 'No' })
    assert.equal(twice.statusCode, 409)
    assert.match(twice.body, /already approved/)
    assert.doesNotMatch(twice.body, /Something went wrong/)

    // Another user (no permission at A, not involved) gets 404 for it, and does not see it listed.
    assert.equal((await outsider.b.get(detail)).statusCode, 404)
    assert.doesNotMatch((await outsider.b.get('/console/requests')).body, new RegExp(`href="${detail}"`))
    assert.equal((await outsider.b.get(approvalUrl)).statusCode, 404)
  })

  test('a deactivated vendor stays on the edit form; cancel a draft; the status filter', async () => {
    const made = await s.admin({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Gone Ltd', type: 3 } })
    const gone = made.json().data.id as number
    const detail = await draftThroughForm(
      requester.b,
      { 'lines.0.quantity': '1', 'lines.0.unit_price': '9.99', 'lines.0.vendor': String(gone) },
      'To cancel',
    )
    const off = await s.admin({ method: 'PATCH', url: `/api/v3/vendors/${gone}/`, payload: { active: false } })
    assert.equal(off.statusCode, 200, off.body)
    assert.match((await requester.b.get(detail)).body, /Gone Ltd/)
    const edit = (await requester.b.get(`${detail}/edit`)).body
    assert.match(edit, new RegExp(`<option value="${gone}"\\s+selected\\s*>Gone Ltd \\(inactive\\)</option>`))
    const token = await csrf(requester.b, detail)
    const cancelled = await requester.b.post(`${detail}/cancel`, { _csrf: token })
    assert.equal(cancelled.statusCode, 303)
    assert.match((await requester.b.get(detail)).body, /<dd>Cancelled<\/dd>/)
    const list = (await requester.b.get('/console/requests?status=cancelled')).body
    assert.match(list, new RegExp(`href="${detail}"`))
    assert.doesNotMatch((await requester.b.get('/console/requests?status=draft')).body, new RegExp(`href="${detail}"`))
  })

  test('delegation on My account: the delegatee decides on behalf of the away approver', async () => {
    const token = await csrf(approver.b, '/console/account')
    const refused = await approver.b.post('/console/account/delegation', {
      _csrf: token,
      delegatee: '',
      expected_return_date: '2001-01-01',
    })
    assert.equal(refused.statusCode, 400)
    assert.match(refused.body, /id="f-delegatee-error"/)
    assert.match(refused.body, /value="2001-01-01"/)
    const set = await approver.b.post('/console/account/delegation', {
      _csrf: token,
      delegatee: String(requester.profileId),
      expected_return_date: '',
    })
    assert.equal(set.statusCode, 303, set.body)
    const account = (await approver.b.get('/console/account')).body
    assert.match(account, /Your approvals go to <strong>rita Tester<\/strong>/)

    // The delegatee sees the approver's new approvals in their inbox, marked as such (not their own request:
    // a second requester makes it).
    const other = await person('olga', s.roles.Requester, s.A)
    const detail = await draftThroughForm(other.b, { 'lines.0.quantity': '1', 'lines.0.unit_price': '5' }, 'Pens')
    assert.equal((await other.b.post(`${detail}/submit`, { _csrf: await csrf(other.b, detail) })).statusCode, 303)
    const inbox = (await requester.b.get('/console/approvals')).body
    assert.match(inbox, /On behalf of abe Tester/)
    assert.match(inbox, /href="\/console\/approvals"/, 'the delegatee has the Approvals menu')
    const url = /href="(\/console\/approvals\/\d+)"/.exec(inbox)![1]!
    const page = await requester.b.get(url)
    assert.match(page.body, /on behalf of <strong>abe Tester<\/strong>/)
    // A delegatee decides only where they hold nav_approval themselves (issue 30): refused until granted at A.
    const notYet = await requester.b.post(url, {
      _csrf: requester.b.csrfOf(page.body)!,
      decision: 'approve',
      comment: '',
    })
    assert.equal(notYet.statusCode, 403)
    const grants = `/api/v3/users/${requester.profileId}/location-roles/`
    const atA = [{ location: s.A, role: s.roles.Approver }]
    assert.equal((await s.admin({ method: 'PUT', url: grants, payload: atA })).statusCode, 200)
    const ok = await requester.b.post(url, { _csrf: requester.b.csrfOf(page.body)!, decision: 'approve', comment: '' })
    assert.equal(ok.statusCode, 303)
    assert.equal((await s.admin({ method: 'PUT', url: grants, payload: [] })).statusCode, 200)
    assert.match((await other.b.get(detail)).body, /rita Tester <span class="muted">on behalf of<\/span> abe Tester/)

    const ended = await approver.b.post('/console/account/delegation/end', { _csrf: token })
    assert.equal(ended.statusCode, 303)
    assert.match((await approver.b.get('/console/account')).body, /You are not away/)
  })

  test('hostile input gets a 4xx, never a 5xx', async () => {
    const token = await csrf(requester.b, '/console/requests/new')
    const posts: [string, Record<string, string>][] = [
      ['/console/requests/new', { _csrf: token, rows: '99999999999', location: 'x', intent: 'save' }],
      ['/console/requests/new', { _csrf: token, rows: '-5', location: '999999999999', intent: 'save' }],
      [
        '/console/requests/new',
        {
          _csrf: token,
          rows: '1',
          location: String(s.A),
          department: '2147483647',
          currency: '<script>',
          needed_by: 'yesterday',
          'lines.0.quantity': '1e9',
          'lines.0.unit_price': '-1',
          'lines.0.vendor': '99999999999',
          intent: 'save',
        },
      ],
      [
        '/console/requests/new',
        {
          _csrf: token,
          rows: '1',
          location: String(s.B),
          'lines.0.quantity': '1',
          'lines.0.unit_price': '1',
          intent: 'save',
        },
      ],
      ['/console/requests/2147483647/submit', { _csrf: token }],
      ['/console/requests/0/cancel', { _csrf: token }],
      ['/console/approvals/2147483647', { _csrf: token, decision: 'approve' }],
      ['/console/approvals/1', { _csrf: token, decision: 'maybe' }],
      ['/console/account/delegation', { _csrf: token, delegatee: '99999999999999', expected_return_date: 'soon' }],
      ['/console/account/delegation', { _csrf: token, delegatee: String(requester.profileId) }],
    ]
    for (const [url, form] of posts) {
      const response = await requester.b.post(url, form)
      assert.ok(
        response.statusCode >= 400 && response.statusCode < 500,
        `${url} ${JSON.stringify(form)} → ${response.statusCode}`,
      )
    }
    for (const url of [
      '/console/requests?status=lost',
      '/console/requests?page=0',
      '/console/requests/abc',
      '/console/requests/99999999999/edit',
      '/console/approvals?status=%3Cscript%3E',
      '/console/approvals/-1',
    ]) {
      const response = await requester.b.get(url)
      assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${url} → ${response.statusCode}`)
    }
  })
})
