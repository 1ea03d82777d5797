/** Every write leaves an audit record: who, through which application, what, when, which request. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readAudit } from '../src/audit/repository.ts'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

test('writes through the API are audited in their own transaction; refused writes are not', async () => {
  const { api, tenant, creds } = await signedIn(ctx)
  const vendor = await api({
    method: 'POST',
    url: '/api/v3/vendors/',
    payload: { name: 'Audited Co' },
    headers: { 'x-request-id': 'req-audit-1' },
  })
  assert.equal(vendor.statusCode, 201)
  const id = vendor.json().data.id
  await api({ method: 'PATCH', url: `/api/v3/vendors/${id}/`, payload: { city: 'Oslo' } })
  const users = await api({
    method: 'POST',
    url: '/api/v3/users/',
    payload: [{ email: 'a1@example.org' }, { email: 'a2@example.org' }],
  })
  assert.equal(users.statusCode, 201)
  const created = await api({ method: 'POST', url: '/api/v3/applications/', payload: { description: 'audit' } })
  await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: '' } })
  const requester = await signedIn(ctx, 'requester', tenant)
  await requester.api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Refused' } })

  // The sample tenant's own requests and rules were made through the services too (audited, via the CLI channel).
  const rows = (await readAudit(ctx.database.db, { domain: tenant.domain })).filter((r) => r.client_id !== null)
  const actions = rows.map((r) => r.action)
  assert.deepEqual(actions, ['vendor.create', 'vendor.update', 'user.create', 'user.create', 'application.create'])
  const first = rows[0]!
  assert.equal(first.actor, 'admin@example.com')
  assert.equal(first.client_id, creds.client_id)
  assert.equal(first.request_id, 'req-audit-1')
  assert.equal(first.resource_id, String(id))
  assert.deepEqual(rows[1]!.changes, { city: 'Oslo' })
  assert.ok(!JSON.stringify(rows).includes(created.json().data.client_secret), 'no secret in the audit log')
})
