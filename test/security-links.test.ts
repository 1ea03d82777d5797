/**
 * Session lifecycle and one-time links (issue 20 items 2 and 6), tried as an attacker: a stolen session
 * outlives a password reset; an invitation is accepted on another tenant's host, a reset link is "accepted"
 * as an invitation, a deactivated user's invitation is accepted, a link is used twice.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { resetPasswordLink } from '../src/tenants/service.ts'
import { useTestApp } from './helpers/app.ts'
import {
  BASE_DOMAIN,
  adminBrowser,
  apiAs,
  browser,
  newTenant,
  roleId,
  throughLink,
  userRow,
} from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })

/** A freshly invited user of a new tenant, and the invitation's token (read from the outbox). */
async function invited(email = `invitee${Date.now()}@links.test`) {
  const tenant = await newTenant(ctx)
  const admin = await apiAs(ctx, tenant, tenant.adminUserId)
  const created = await admin({
    method: 'POST',
    url: '/api/v3/users/',
    payload: [{ email, role_id: await roleId(ctx, tenant, 'Requester'), send_invitation_email: true }],
  })
  assert.equal(created.statusCode, 201, created.body)
  const profile = created.json().data[0] as { id: number; user: number }
  const mail = await ctx.database.db
    .selectFrom('email_outbox')
    .select('body_text')
    .where('tenant_id', '=', tenant.tenantId)
    .where('to_address', '=', email)
    .executeTakeFirstOrThrow()
  const token = /\/console\/setup\/([A-Za-z0-9_-]+)/.exec(mail.body_text)![1]!
  return { tenant, admin, profile, token, email }
}

const accept = (host: string, token: string) =>
  ctx.app.inject({ method: 'POST', url: `/invitations/${token}/accept`, headers: { host } })

describe('a new password ends every other session', () => {
  test('a session stolen before a reset stops working the moment the reset link sets a password', async () => {
    const tenant = await newTenant(ctx)
    const stolen = await adminBrowser(ctx, tenant)
    assert.equal((await stolen.get('/console/account')).statusCode, 200)
    const link = await resetPasswordLink(ctx.database.db, tenant.domain, tenant.email)
    const owner = await throughLink(ctx, tenant.host, link, 'a brand new passphrase')
    assert.equal((await owner.get('/console/account')).statusCode, 200, 'the owner is signed in')
    const after = await stolen.get('/console/account')
    assert.notEqual(after.statusCode, 200, 'the old session is over')
    assert.match(String(after.headers.location), /sign-in/)
  })

  test('an invitation accepted with a password also ends sessions made earlier', async () => {
    const { tenant, token, email } = await invited()
    // The invitee had signed in before with a reset link (e.g. the operator's), then uses the invitation.
    const earlier = await throughLink(ctx, tenant.host, await resetPasswordLink(ctx.database.db, tenant.domain, email))
    await throughLink(ctx, tenant.host, token, 'another good passphrase')
    assert.notEqual((await earlier.get('/console/account')).statusCode, 200)
  })
})

describe('links are bound to tenant and purpose, used once, for active users', () => {
  test("an invitation accepted on another tenant's host → 404; it still works on its own", async () => {
    const { tenant, token } = await invited()
    const other = await newTenant(ctx)
    assert.equal((await accept(other.host, token)).statusCode, 404)
    const set = await browser(ctx, other.host).post(`/console/setup/${token}`, {
      password: 'x'.repeat(20),
      confirm: 'x'.repeat(20),
    })
    assert.equal(set.statusCode, 404, 'nor on the set-password page there')
    const own = await accept(tenant.host, token)
    assert.equal(own.statusCode, 200, own.body)
    assert.equal((await accept(tenant.host, token)).statusCode, 404, 'single use')
  })

  test('a reset link posted to the invitation endpoint → 404; it still sets a password', async () => {
    const tenant = await newTenant(ctx)
    const reset = await resetPasswordLink(ctx.database.db, tenant.domain, tenant.email)
    assert.equal((await accept(tenant.host, reset)).statusCode, 404)
    assert.equal((await accept(tenant.host, tenant.setupToken)).statusCode, 404, 'nor a set-up link')
    await throughLink(ctx, tenant.host, reset)
  })

  test("a deactivated user's invitation → 404, on the API endpoint and the set-password page", async () => {
    const { tenant, admin, profile, token } = await invited()
    assert.equal((await admin({ method: 'DELETE', url: `/api/v3/users/${profile.id}/` })).statusCode, 204)
    assert.equal((await accept(tenant.host, token)).statusCode, 404)
    const b = browser(ctx, tenant.host)
    const set = await b.post(`/console/setup/${token}`, { password: 'a fine passphrase', confirm: 'a fine passphrase' })
    assert.equal(set.statusCode, 404)
    assert.equal((await userRow(ctx, profile.user)).password_hash, null)
  })
})
