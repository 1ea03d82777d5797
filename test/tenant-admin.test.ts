/**
 * Administering a tenant without SQL (issue #33, DECISIONS "Administering a tenant without SQL"): the demo
 * tenant's first request by its administrator submits and lands in someone's inbox.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

describe('the demo tenant', () => {
  test("the administrator's first request at the Head Office submits and waits in the manager's inbox", async () => {
    const admin = await signedIn(ctx, 'admin')
    const manager = await signedIn(ctx, 'manager', admin.tenant)
    const locations = (await admin.api({ method: 'GET', url: '/api/v3/locations/?order_by=id' })).json().data
    const headOffice = locations[0].id as number
    const before = (await manager.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.pending_approvals_count
      .order
    const draft = await admin.api({
      method: 'POST',
      url: '/api/v3/requests/',
      payload: {
        location: headOffice,
        description: 'A first request',
        lines: [{ description: 'Chair', quantity: '1', unit_price: '1200' }],
      },
    })
    assert.equal(draft.statusCode, 201, draft.body)
    const submitted = await admin.api({ method: 'POST', url: `/api/v3/requests/${draft.json().data.id}/submit/` })
    assert.equal(submitted.statusCode, 200, submitted.body)
    const approval = submitted.json().data.approvals[0]
    assert.deepEqual(
      approval.candidates.map((c: { email: string }) => c.email),
      ['manager@example.com'],
    )
    const inbox = (await manager.api({ method: 'GET', url: '/api/v3/approvals/?approver=me&status=pending' })).json()
    assert.ok(inbox.data.some((a: { id: number }) => a.id === approval.id))
    const after = (await manager.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.pending_approvals_count
      .order
    assert.equal(after, before + 1)
    // Over 1,000: step 2 follows step 1 and also has a candidate other than the admin.
    const approved = await manager.api({
      method: 'POST',
      url: `/api/v3/approvals/${approval.id}/approve/`,
      payload: {},
    })
    assert.equal(approved.statusCode, 200, approved.body)
    const request = (await admin.api({ method: 'GET', url: `/api/v3/requests/${draft.json().data.id}/` })).json().data
    assert.equal(request.approvals[1].status, 'pending')
  })
})
