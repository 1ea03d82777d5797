/**
 * Approval e-mail (issue #33): the deciders of a pending approval (a delegatee for an away candidate) and the
 * requester of a decided request are told, with links into the console, through the outbox when there is no
 * SMTP server; a person turns it off on My account.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signedIn, useTestApp, type SampleTenant } from './helpers/app.ts'
import { BASE_DOMAIN, throughLink } from './helpers/security.ts'
import { resetPasswordLink } from '../src/tenants/service.ts'

const ctx = useTestApp()

async function mail(tenant: SampleTenant, since: number) {
  const rows = await ctx.database.db
    .selectFrom('email_outbox')
    .select(['id', 'to_address', 'subject', 'body_text'])
    .where('tenant_id', '=', tenant.tenantId)
    .where('id', '>', since)
    .orderBy('id')
    .execute()
  return rows
}
const lastId = async (tenant: SampleTenant) => (await mail(tenant, 0)).at(-1)?.id ?? 0

describe('approval e-mail', () => {
  test('pending → its deciders (a delegatee for the away buyer); decided → the requester; opt-out on My account', async () => {
    const rita = await signedIn(ctx, 'requester')
    const tenant = rita.tenant
    const admin = await signedIn(ctx, 'admin', tenant)
    const [headOffice, east] = (await admin.api({ method: 'GET', url: '/api/v3/locations/?order_by=id' }))
      .json()
      .data.map((l: { id: number }) => l.id)
    const submit = async (location: number, price: string) => {
      const draft = await rita.api({
        method: 'POST',
        url: '/api/v3/requests/',
        payload: {
          location,
          description: 'Chairs',
          lines: [{ description: 'Chair', quantity: '1', unit_price: price }],
        },
      })
      assert.equal(draft.statusCode, 201, draft.body)
      const submitted = await rita.api({ method: 'POST', url: `/api/v3/requests/${draft.json().data.id}/submit/` })
      assert.equal(submitted.statusCode, 200, submitted.body)
      return submitted.json().data
    }

    let since = await lastId(tenant)
    const big = await submit(headOffice, '1500')
    let sent = await mail(tenant, since)
    assert.deepEqual(
      sent.map((m) => m.to_address),
      ['admin@example.com', 'manager@example.com'],
    )
    assert.equal(sent[0]!.subject, `Approval needed: request #${big.id}`)
    assert.match(
      sent[0]!.body_text,
      new RegExp(`requester@example.com asks for your approval of request #${big.id} “Chairs” \\(1500 USD, `),
    )
    assert.match(sent[0]!.body_text, new RegExp(`http://\\S+/console/approvals/${big.approvals[0].id}\\n`))
    assert.match(sent[0]!.body_text, /Turn it off on My account: http:\/\/\S+\/console\/account/)

    // The East Warehouse's approver (the buyer) is away: the admin, the delegatee, is told instead.
    since = await lastId(tenant)
    await submit(east, '10')
    assert.deepEqual(
      (await mail(tenant, since)).map((m) => m.to_address),
      ['admin@example.com'],
    )

    // The manager turns approval e-mail off on My account.
    const host = `${tenant.domain}.${BASE_DOMAIN}`
    const manager = await throughLink(
      ctx,
      host,
      await resetPasswordLink(ctx.database.db, tenant.domain, 'manager@example.com'),
    )
    const account = await manager.get('/console/account')
    assert.match(account.body, /Turn approval e-mail off/)
    const off = await manager.submit('/console/account', '/console/account/notifications', { approval_emails: 'off' })
    assert.equal(off.statusCode, 303)
    assert.match((await manager.get('/console/account')).body, /You get no approval e-mail\./)

    // The manager approves step 1: step 2 waits, and only the admin is told (the manager, who approved the
    // step before, is no candidate of it, and has turned the e-mail off anyway); then rejected: Rita is told.
    since = await lastId(tenant)
    const stepOne = `/console/approvals/${big.approvals[0].id}`
    const first = await manager.submit(stepOne, stepOne, { decision: 'approve', comment: '' })
    assert.equal(first.statusCode, 303, first.body)
    assert.deepEqual(
      (await mail(tenant, since)).map((m) => m.to_address),
      ['admin@example.com'],
    )
    const step2 = (await rita.api({ method: 'GET', url: `/api/v3/requests/${big.id}/` })).json().data.approvals[1]
    since = await lastId(tenant)
    const rejected = await admin.api({
      method: 'POST',
      url: `/api/v3/approvals/${step2.id}/reject/`,
      payload: { comment: 'Too dear.' },
    })
    assert.equal(rejected.statusCode, 200, rejected.body)
    sent = await mail(tenant, since)
    assert.deepEqual(
      sent.map((m) => [m.to_address, m.subject]),
      [['requester@example.com', `Request #${big.id} rejected`]],
    )
    assert.match(sent[0]!.body_text, /Comment: Too dear\./)
    assert.match(sent[0]!.body_text, new RegExp(`/console/requests/${big.id}\\n`))
  })
})
