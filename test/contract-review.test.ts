/**
 * Points where a review of DECISIONS.md found the service saying something else, each checked as the text
 * reads: every committed write that changes a profile records `user.updated`; the delegation body a GET
 * answers with can be sent back; a delegatee must be active; any one candidate decides; lists take
 * `updated_since`; an id that names no event is a 404; role and rule routes are for superuser or nav_setting;
 * permission at the location is judged before the body; naming a request's own location changes nothing.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { decide, draft, pendingOrders, rule, setUp, submit, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
let s: Setup
let requester: Person
let away: Person
let delegatee: Person
let plain: Person

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  requester = await s.user('req', s.roles.Requester, s.A)
  away = await s.user('away', s.roles.Approver, s.A)
  delegatee = await s.user('deleg', s.roles.Requester, s.B)
  plain = await s.user('plain', s.roles.Requester, s.B)
  await rule(s.admin, { location: s.A, step: 1, approvers: [away.profileId] })
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, asserted on field by field
type Body = any

/** The events after `after` (the admin reads the feed), and the id to continue from. */
async function eventsAfter(after: string | undefined): Promise<{ events: Body[]; last: string | undefined }> {
  const response = await s.admin({
    method: 'GET',
    url: `/api/v3/events/?page_size=1000${after === undefined ? '' : `&after=${after}`}`,
  })
  assert.equal(response.statusCode, 200, response.body)
  const events = response.json().data as Body[]
  return { events, last: events.at(-1)?.id ?? after }
}

const delegationUrl = (p: Person) => `/api/v3/users/${p.profileId}/delegation/`

describe('events for every change to a profile', () => {
  test('re-activating a user records user.updated; deactivating or re-activating twice records nothing more', async () => {
    const someone = await s.user('react', s.roles.Requester, s.B)
    const url = `/api/v3/users/${someone.profileId}/`
    assert.equal((await s.admin({ method: 'DELETE', url })).statusCode, 204)
    const start = (await eventsAfter(undefined)).last
    assert.equal((await s.admin({ method: 'DELETE', url })).statusCode, 204)
    assert.deepEqual((await eventsAfter(start)).events, [], 'deactivating a deactivated user is no change')
    const activated = await s.admin({ method: 'POST', url: `${url}activate/` })
    assert.equal(activated.statusCode, 200, activated.body)
    const { events, last } = await eventsAfter(start)
    assert.deepEqual(
      events.map((e) => [e.type, e.data.object.id, e.data.object.is_active]),
      [['user.updated', someone.profileId, true]],
    )
    assert.deepEqual(events[0].data.object, (await s.admin({ method: 'GET', url })).json().data)
    assert.equal((await s.admin({ method: 'POST', url: `${url}activate/` })).statusCode, 200)
    assert.deepEqual((await eventsAfter(last)).events, [], 'activating an active user is no change')
  })

  test('setting and ending a delegation record user.updated with the profile as it shows the delegation', async () => {
    const who = await s.user('setter', s.roles.Approver, s.A)
    const start = (await eventsAfter(undefined)).last
    const set = await who.api({ method: 'PUT', url: delegationUrl(who), payload: { delegatee: delegatee.profileId } })
    assert.equal(set.statusCode, 200, set.body)
    const afterSet = await eventsAfter(start)
    assert.deepEqual(
      afterSet.events.map((e) => [e.type, e.data.object.id, e.data.object.approval_delegatee?.id]),
      [['user.updated', who.profileId, delegatee.profileId]],
    )
    assert.equal((await who.api({ method: 'DELETE', url: delegationUrl(who) })).statusCode, 204)
    const afterEnd = await eventsAfter(afterSet.last)
    assert.deepEqual(
      afterEnd.events.map((e) => [e.type, e.data.object.id, e.data.object.approval_delegatee]),
      [['user.updated', who.profileId, null]],
    )
    assert.equal((await who.api({ method: 'DELETE', url: delegationUrl(who) })).statusCode, 204)
    assert.deepEqual((await eventsAfter(afterEnd.last)).events, [], 'ending no delegation is no change')
  })
})

describe('delegation', () => {
  test('the body a GET answers with can be sent back with PUT unchanged', async () => {
    const who = await s.user('roundtrip', s.roles.Approver, s.A)
    const first = await who.api({
      method: 'PUT',
      url: delegationUrl(who),
      payload: { delegatee: delegatee.profileId, expected_return_date: '2099-12-31' },
    })
    assert.equal(first.statusCode, 200, first.body)
    const read = (await who.api({ method: 'GET', url: delegationUrl(who) })).json().data
    assert.equal(read.delegatee.id, delegatee.profileId)
    const again = await who.api({ method: 'PUT', url: delegationUrl(who), payload: read })
    assert.equal(again.statusCode, 200, again.body)
    assert.deepEqual(again.json().data, read)
    for (const bad of [{ delegatee: { name: 'x' } }, { delegatee: { id: 0 } }, { delegatee: '9' }]) {
      const response = await who.api({ method: 'PUT', url: delegationUrl(who), payload: bad })
      assert.equal(response.statusCode, 400, `${JSON.stringify(bad)} → ${response.body}`)
      assert.match(response.body, /delegatee/)
    }
    await who.api({ method: 'DELETE', url: delegationUrl(who) })
  })

  test('a delegatee who is deactivated no longer decides: the delegation ends, the away user counts again', async () => {
    const stand = await s.user('standin', s.roles.Requester, s.B)
    const set = await away.api({ method: 'PUT', url: delegationUrl(away), payload: { delegatee: stand.profileId } })
    assert.equal(set.statusCode, 200, set.body)
    const r = await draft(requester.api, s.A)
    assert.equal((await submit(requester.api, r.id)).statusCode, 200)
    assert.equal(await pendingOrders(stand.api), 1)
    assert.equal(await pendingOrders(away.api), 0)
    const start = (await eventsAfter(undefined)).last
    assert.equal((await s.admin({ method: 'DELETE', url: `/api/v3/users/${stand.profileId}/` })).statusCode, 204)
    const read = (await away.api({ method: 'GET', url: delegationUrl(away) })).json().data
    assert.deepEqual(read, { delegatee: null, expected_return_date: null })
    assert.equal(await pendingOrders(away.api), 1)
    const profile = (await s.admin({ method: 'GET', url: `/api/v3/users/${away.profileId}/` })).json().data
    assert.equal(profile.approval_delegatee, null)
    assert.deepEqual(
      (await eventsAfter(start)).events.map((e) => [e.type, e.data.object.id]),
      [
        ['user.deactivated', stand.profileId],
        ['user.updated', away.profileId],
      ],
    )
    // Re-activated, the stand-in does not become the delegatee again by itself.
    await s.admin({ method: 'POST', url: `/api/v3/users/${stand.profileId}/activate/` })
    assert.equal(await pendingOrders(away.api), 1)
    await requester.api({ method: 'POST', url: `/api/v3/requests/${r.id}/cancel/` })
  })

  test('an away candidate still decides their approval (any one candidate decides); acted_by them, on behalf of no one', async () => {
    const set = await away.api({ method: 'PUT', url: delegationUrl(away), payload: { delegatee: delegatee.profileId } })
    assert.equal(set.statusCode, 200, set.body)
    try {
      const r = await draft(requester.api, s.A)
      const approvalId = (await submit(requester.api, r.id)).json().data.approvals[0].id as number
      assert.equal(await pendingOrders(away.api), 0, 'while away, the count shows 0')
      const decided = await decide(away.api, approvalId, 'approve')
      assert.equal(decided.statusCode, 200, decided.body)
      assert.equal(decided.json().data.acted_by.id, away.profileId)
      assert.equal(decided.json().data.on_behalf_of, null)
      assert.equal((await decide(away.api, approvalId, 'reject', 'late')).statusCode, 409, 'a second decision')
      // The requester never decides, even as a candidate's delegatee.
      const own = await draft(away.api, s.A)
      const ownApproval = await submit(away.api, own.id)
      assert.equal(ownApproval.statusCode, 409, 'the only candidate is the requester: no candidate left')
    } finally {
      await away.api({ method: 'DELETE', url: delegationUrl(away) })
    }
  })
})

describe('requests', () => {
  test('the list takes updated_since: only requests changed at or after it', async () => {
    const before = await draft(requester.api, s.A)
    await new Promise((resolve) => setTimeout(resolve, 20))
    const since = new Date().toISOString()
    const after = await draft(requester.api, s.A)
    const list = await requester.api({ method: 'GET', url: `/api/v3/requests/?updated_since=${since}&page_size=100` })
    assert.equal(list.statusCode, 200, list.body)
    const ids = list.json().data.map((r: Body) => r.id)
    assert.ok(ids.includes(after.id))
    assert.ok(!ids.includes(before.id))
    const submitted = await submit(requester.api, before.id)
    assert.equal(submitted.statusCode, 200, submitted.body)
    const again = await requester.api({ method: 'GET', url: `/api/v3/requests/?updated_since=${since}&page_size=100` })
    assert.ok(
      again.json().data.some((r: Body) => r.id === before.id),
      'submitting changes it',
    )
    const bad = await requester.api({ method: 'GET', url: '/api/v3/requests/?updated_since=yesterday' })
    assert.equal(bad.statusCode, 400)
    assert.match(bad.body, /updated_since/)
    await requester.api({ method: 'POST', url: `/api/v3/requests/${before.id}/cancel/` })
  })

  test('a PATCH naming the request’s own location keeps its department and currency', async () => {
    const currencies = (await s.admin({ method: 'GET', url: '/api/v2/currencies/' })).json().data as Body[]
    const other = currencies.find((c) => !c.base) ?? currencies[0]
    const r = await draft(requester.api, s.A, undefined, { department: s.departmentA, currency: other.name })
    assert.equal(r.department.id, s.departmentA)
    assert.equal(r.currency, other.name)
    const patched = await requester.api({
      method: 'PATCH',
      url: `/api/v3/requests/${r.id}/`,
      payload: { location: s.A, description: 'same place' },
    })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().data.department?.id, s.departmentA)
    assert.equal(patched.json().data.currency, other.name)
    assert.equal(patched.json().data.description, 'same place')
  })

  test('without nav_request at an existing location: 403 before the body is judged', async () => {
    const response = await plain.api({
      method: 'POST',
      url: '/api/v3/requests/',
      payload: { location: s.A, department: 999999, lines: [{ quantity: '1', unit_price: '1', vendor: 999999 }] },
    })
    assert.equal(response.statusCode, 403, response.body)
    const nowhere = await plain.api({
      method: 'POST',
      url: '/api/v3/requests/',
      payload: { location: 999999, lines: [{ quantity: '1', unit_price: '1' }] },
    })
    assert.equal(nowhere.statusCode, 400, 'a location that does not exist is a field error')
    assert.match(nowhere.body, /location/)
  })
})

describe('reads', () => {
  test('an id that names no event is a 404, whatever its form', async () => {
    for (const id of ['12345', 'evt_nope', `evt_${'f'.repeat(32)}`, '__proto__', 'constructor', '%F0%9F%92%A9']) {
      const response = await s.admin({ method: 'GET', url: `/api/v3/events/${id}/` })
      assert.equal(response.statusCode, 404, `${id} → ${response.body}`)
      assert.match(String(response.headers['content-type']), /problem\+json/)
    }
    assert.equal((await s.admin({ method: 'GET', url: `/api/v3/events/${'x'.repeat(201)}/` })).statusCode, 400)
  })

  test('a superuser’s systemaccess_cache has every location, with every key, granted there or not', async () => {
    const me = (await s.admin({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    assert.ok(me.systemaccess_cache.structured.system.flattened.includes('superuser'), 'the admin is a superuser')
    const locations = (await s.admin({ method: 'GET', url: '/api/v3/locations/?page_size=100' })).json().data as Body[]
    assert.ok(locations.length >= 2)
    for (const l of locations) {
      const entry = me.systemaccess_cache.structured[String(l.id)]
      assert.ok(entry, `location ${l.id} is listed`)
      for (const key of ['superuser', 'nav_request', 'nav_approval', 'nav_purchase'])
        assert.ok(entry.flattened.includes(key), `${key} at ${l.id}`)
    }
    const plainMe = (await plain.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    assert.equal(plainMe.systemaccess_cache.structured[String(s.A)], undefined, 'nothing at A for a requester at B')
  })

  test('one role by id, and approval rules, are for superuser or nav_setting; the roles look-up is for everyone', async () => {
    assert.equal((await plain.api({ method: 'GET', url: `/api/v3/roles/${s.roles.Requester}/` })).statusCode, 403)
    assert.equal((await s.admin({ method: 'GET', url: `/api/v3/roles/${s.roles.Requester}/` })).statusCode, 200)
    assert.equal((await plain.api({ method: 'GET', url: '/api/v3/roles/' })).statusCode, 200)
    assert.equal((await plain.api({ method: 'GET', url: '/api/v3/approval-rules/' })).statusCode, 403)
    assert.equal((await s.admin({ method: 'GET', url: '/api/v3/approval-rules/' })).statusCode, 200)
  })
})
