/**
 * Request and approval events (DECISIONS, "Events and webhooks"): each transition records its events in the
 * same transaction, in a reader's order, with each object exactly as its GET returns it right after; editing a
 * draft and a refused submit record none; webhook endpoints subscribe to the new types and families.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { decide, draft, line, rule, setUp, submit, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN } from './helpers/security.ts'
import type { Api } from './helpers/security.ts'

const ctx = useTestApp({
  BASE_DOMAIN,
  LOG_LEVEL: 'warn',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, asserted on field by field
type Body = any

let s: Setup
let requester: Person
let first: Person // Approver at A: step 1
let second: Person // Approver at A: step 2, from 100

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  requester = await s.user('req', s.roles.Requester, s.A)
  first = await s.user('first', s.roles.Approver, s.A)
  second = await s.user('second', s.roles.Approver, s.A)
  await rule(s.admin, { location: s.A, step: 1, approvers: [first.profileId] })
  await rule(s.admin, { location: s.A, step: 2, min_total: '100', approvers: [second.profileId] })
})

/** The tenant's events after `after` (all of them without), following the cursor to the end. */
async function events(query = '', after?: string): Promise<Body[]> {
  const found: Body[] = []
  let cursor = after
  for (;;) {
    const url = `/api/v3/events/?page_size=50${query}${cursor === undefined ? '' : `&after=${cursor}`}`
    const response = await s.admin({ method: 'GET', url })
    assert.equal(response.statusCode, 200, response.body)
    const body: Body = response.json()
    found.push(...body.data)
    if (!body.metadata.has_more) return found
    cursor = body.metadata.next_cursor
  }
}

/** The id of the tenant's newest event (the cursor from which a test reads what it causes). */
const last = async () => (await events()).at(-1)?.id as string | undefined

const getRequest = async (id: number) => (await s.admin({ method: 'GET', url: `/api/v3/requests/${id}/` })).json().data
const getApproval = async (id: number) =>
  (await s.admin({ method: 'GET', url: `/api/v3/approvals/${id}/` })).json().data

/** Runs `step` and returns the events it recorded, as [type, object] pairs. */
async function recorded(step: () => Promise<unknown>): Promise<[string, Body][]> {
  const cursor = await last()
  await step()
  return (await events('', cursor)).map((e) => [e.type, e.data.object])
}

async function ok<R extends { statusCode: number; body: string }>(response: Promise<R>, status = 200): Promise<R> {
  const r = await response
  assert.equal(r.statusCode, status, r.body)
  return r
}

describe('request and approval events', () => {
  test('create, edit, two-step approval: each transition’s events, objects equal to GET', async () => {
    let id = 0
    const created = await recorded(async () => {
      id = (await draft(requester.api, s.A, [line('1', '60')])).id
    })
    assert.deepEqual(created, [['request.created', await getRequest(id)]])

    const edited = await recorded(() =>
      ok(requester.api({ method: 'PATCH', url: `/api/v3/requests/${id}/`, payload: { lines: [line('2', '75')] } })),
    )
    assert.deepEqual(edited, [], 'editing a draft has no event type')

    const submitted = await recorded(() => ok(submit(requester.api, id)))
    let request = await getRequest(id)
    assert.equal(request.status, 'pending')
    const step1 = await getApproval(request.approvals[0].id)
    assert.deepEqual(submitted, [
      ['request.submitted', request],
      ['approval.created', step1],
    ])

    const firstDecision = await recorded(() => ok(decide(first.api, step1.id, 'approve', 'Fine')))
    request = await getRequest(id)
    assert.equal(request.status, 'pending')
    const step2 = await getApproval(request.approvals[1].id)
    assert.equal(step2.step, 2)
    assert.deepEqual(firstDecision, [
      ['approval.approved', await getApproval(step1.id)],
      ['approval.created', step2],
    ])

    const lastDecision = await recorded(() => ok(decide(second.api, step2.id, 'approve')))
    request = await getRequest(id)
    assert.equal(request.status, 'approved')
    assert.deepEqual(lastDecision, [
      ['approval.approved', await getApproval(step2.id)],
      ['request.approved', request],
    ])
  })

  test('a rejection: approval.rejected, then request.rejected', async () => {
    const { id } = await draft(requester.api, s.A, [line('1', '10')])
    const step1 = (await ok(submit(requester.api, id))).json().data.approvals[0]
    const rejected = await recorded(() => ok(decide(first.api, step1.id, 'reject', 'Not now')))
    const request = await getRequest(id)
    assert.equal(request.status, 'rejected')
    assert.deepEqual(rejected, [
      ['approval.rejected', await getApproval(step1.id)],
      ['request.rejected', request],
    ])
  })

  test('no matching rule: request.submitted and request.approved, both the approved request', async () => {
    const { id } = await draft(s.admin, s.B)
    const submitted = await recorded(() => ok(submit(s.admin, id)))
    const request = await getRequest(id)
    assert.equal(request.status, 'approved')
    assert.deepEqual(submitted, [
      ['request.submitted', request],
      ['request.approved', request],
    ])
  })

  test('cancel: request.cancelled only (the cancelled approval shows in it, with no event of its own)', async () => {
    const pending = await draft(requester.api, s.A)
    await ok(submit(requester.api, pending.id))
    const cancelled = await recorded(() =>
      ok(requester.api({ method: 'POST', url: `/api/v3/requests/${pending.id}/cancel/` })),
    )
    const request = await getRequest(pending.id)
    assert.equal(request.approvals[0].status, 'cancelled')
    assert.deepEqual(cancelled, [['request.cancelled', request]])

    const drafted = await draft(requester.api, s.A)
    const cancelledDraft = await recorded(() =>
      ok(requester.api({ method: 'POST', url: `/api/v3/requests/${drafted.id}/cancel/` })),
    )
    assert.deepEqual(cancelledDraft, [['request.cancelled', await getRequest(drafted.id)]])
  })

  test('a refused submit (a step without a candidate) and refused transitions record nothing', async () => {
    // At B the only approver is the requester, who never approves their own: step 1 has no candidate → 409, still
    // a draft. (A rule naming someone without nav_approval at B is refused when saved.)
    const adminId = (await s.admin({ method: 'GET', url: '/api/v3/users/me/' })).json().data.id as number
    const atB = await rule(s.admin, { location: s.B, step: 1, approvers: [adminId] })
    const { id } = await draft(s.admin, s.B)
    const nothing = await recorded(async () => {
      await ok(submit(s.admin, id), 409)
      await ok(s.admin({ method: 'POST', url: '/api/v3/approvals/999999/approve/' }), 404)
    })
    assert.deepEqual(nothing, [])
    assert.equal((await getRequest(id)).status, 'draft')
    await ok(s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${atB.id}/` }), 204)
    await ok(s.admin({ method: 'POST', url: `/api/v3/requests/${id}/cancel/` }))
    const again = await recorded(() => ok(s.admin({ method: 'POST', url: `/api/v3/requests/${id}/cancel/` }), 409))
    assert.deepEqual(again, [])
  })

  test('the feed filters by family and type', async () => {
    const { id } = await draft(requester.api, s.A, [line('1', '5')])
    const cursor = await last()
    const step1 = (await ok(submit(requester.api, id))).json().data.approvals[0]
    await ok(decide(first.api, step1.id, 'approve'))
    const types = async (query: string) => (await events(query, cursor)).map((e) => e.type)
    assert.deepEqual(await types('&type=request.*'), ['request.submitted', 'request.approved'])
    assert.deepEqual(await types('&type=approval.*'), ['approval.created', 'approval.approved'])
    assert.deepEqual(await types('&type=approval.approved'), ['approval.approved'])
  })

  test('webhook endpoints subscribe to request and approval types and families', async () => {
    const create = (api: Api, event_types: string[]) =>
      api({
        method: 'POST',
        url: '/api/v3/webhook-endpoints/',
        payload: { url: 'http://127.0.0.1:9/hooks', event_types },
      })
    const endpoint = (await ok(create(s.admin, ['request.*', 'approval.approved']), 201)).json().data
    assert.deepEqual(endpoint.event_types, ['request.*', 'approval.approved'])
    const { id } = await draft(requester.api, s.A, [line('1', '5')])
    const step1 = (await ok(submit(requester.api, id))).json().data.approvals[0]
    await ok(decide(first.api, step1.id, 'approve'))
    const deliveries = (
      await ok(s.admin({ method: 'GET', url: `/api/v3/webhook-endpoints/${endpoint.id}/deliveries/?page_size=100` }))
    ).json().data as Body[]
    assert.deepEqual(
      deliveries.map((d) => d.event_type).reverse(),
      ['request.created', 'request.submitted', 'approval.approved', 'request.approved'],
      'approval.created is not subscribed',
    )
    await ok(s.admin({ method: 'DELETE', url: `/api/v3/webhook-endpoints/${endpoint.id}/` }), 204)
  })
})
