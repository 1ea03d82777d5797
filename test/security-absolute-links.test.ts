/**
 * The changed decision (issue 20): every link the service writes is absolute, even without PUBLIC_URL or
 * BASE_DOMAIN — then its origin is the address the server listens on (127.0.0.1 when it listens on all
 * interfaces), never the request's Host. A client that follows `next` as a URL must get the next page.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { signedIn, testApp, type TestContext } from './helpers/app.ts'

let ctx: TestContext
let origin: string
before(async () => {
  ctx = await testApp({ HOST: '0.0.0.0', PORT: '0', LOG_LEVEL: 'warn' })
  await ctx.app.listen({ port: 0, host: '0.0.0.0' })
  origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`
})
after(() => ctx.close())

describe('links are absolute, from the listening address, never from Host', () => {
  test('next/previous are absolute URLs a client can follow; a forged Host changes nothing', async () => {
    const { token } = await signedIn(ctx)
    const headers = { authorization: `Bearer ${token}`, 'x-service-client': 'api', host: 'evil.example:6666' }
    const first = await fetch(`${origin}/api/v3/vendors/?page_size=2`, { headers })
    assert.equal(first.status, 200)
    const pagination = ((await first.json()) as { metadata: { pagination: { next: string } } }).metadata.pagination
    assert.equal(pagination.next, `${origin}/api/v3/vendors/?page_size=2&page=2`)
    const second = await fetch(pagination.next, { headers })
    assert.equal(second.status, 200)
    const back = ((await second.json()) as { metadata: { pagination: { previous: string } } }).metadata.pagination
    assert.equal(back.previous, `${origin}/api/v3/vendors/?page_size=2&page=1`)
  })

  test('Location of a created resource and the invitation e-mail link are absolute too', async () => {
    const { token, tenant } = await signedIn(ctx)
    const headers = {
      authorization: `Bearer ${token}`,
      'x-service-client': 'api',
      'content-type': 'application/json',
      host: 'evil.example',
    }
    const created = await fetch(`${origin}/api/v3/vendors/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Absolute' }),
    })
    assert.equal(created.status, 201)
    assert.match(String(created.headers.get('location')), new RegExp(`^${origin}/api/v3/vendors/\\d+/$`))
    const invited = await fetch(`${origin}/api/v3/users/`, {
      method: 'POST',
      headers,
      body: JSON.stringify([{ email: 'absolute@links.test', send_invitation_email: true }]),
    })
    assert.equal(invited.status, 201, await invited.clone().text())
    const mail = await ctx.database.db
      .selectFrom('email_outbox')
      .select('body_text')
      .where('tenant_id', '=', tenant.tenantId)
      .where('to_address', '=', 'absolute@links.test')
      .executeTakeFirstOrThrow()
    assert.match(mail.body_text, new RegExp(`${origin}/console/setup/`))
  })
})
