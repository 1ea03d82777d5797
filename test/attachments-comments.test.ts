/**
 * Comments (DECISIONS, "Attachments and comments") through HTTP: 1–5,000 characters of plain text, @e-mail
 * mentions (an e-mail with an absolute console link to a mentioned user who sees the document; 400 naming
 * one who cannot), who may read, add and delete (author within 15 minutes, or superuser), and the events.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { sql } from 'kysely'
import { useTestApp } from './helpers/app.ts'
import { setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { draft } from './helpers/requests.ts'

const ctx = useTestApp({ BASE_DOMAIN: 'example.test', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
})

describe('comments', () => {
  test('a comment with a mention: 201, listed, the mentioned user e-mailed a console link; events', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/comments/`
    const buyerEmail = `buyer@${s.tenant.domain}.test`
    const r = await s.requester.api({
      method: 'POST',
      url,
      payload: { body: `Can you check this, @${buyerEmail.toUpperCase().replace('.TEST', '.test')}?` },
    })
    assert.equal(r.statusCode, 201, r.body)
    const c = r.json().data
    assert.deepEqual(c.document, { type: 'request', id: req.id })
    assert.equal(c.author.id, s.requester.profileId)
    assert.deepEqual(
      c.mentions.map((m: { id: number }) => m.id),
      [s.buyer.profileId],
    )
    const list = await s.buyer.api({ method: 'GET', url })
    assert.deepEqual(list.json().data, [c])
    const mail = await ctx.database.db
      .selectFrom('email_outbox')
      .select(['to_address', 'body_text'])
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('to_address', '=', buyerEmail)
      .execute()
    assert.equal(mail.length, 1)
    assert.match(mail[0]!.body_text, new RegExp(`https?://[^\\s]+/console/requests/${req.id}`))
    const events = await ctx.database.db
      .selectFrom('events')
      .select('type')
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('type', 'like', 'comment.%')
      .execute()
    assert.ok(events.some((e) => e.type === 'comment.created'))
  })

  test('bodies: blank, too long, control characters → 400; mentions of blind or unknown users → 400 naming them', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/comments/`
    for (const body of ['', '   ', 'x'.repeat(5001), 'bell\u0007']) {
      const r = await s.requester.api({ method: 'POST', url, payload: { body } })
      assert.equal(r.statusCode, 400, r.body)
    }
    assert.equal((await s.requester.api({ method: 'POST', url, payload: { body: 'x'.repeat(5000) } })).statusCode, 201)
    const blind = await s.user(`blind${Date.now()}`, s.roles.Requester, s.B)
    const email = (await blind.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.email as string
    const r = await s.requester.api({ method: 'POST', url, payload: { body: `hi @${email}` } })
    assert.equal(r.statusCode, 400, r.body)
    assert.match(r.json().detail, new RegExp(email.replace(/[.+]/g, '\\$&')))
    const unknown = await s.requester.api({ method: 'POST', url, payload: { body: 'hi @nobody@nowhere.test' } })
    assert.equal(unknown.statusCode, 400, unknown.body)
    assert.match(unknown.json().detail, /nobody@nowhere\.test/)
  })

  test('who: others 404, seeing without acting 403; the author deletes within 15 minutes, a superuser always', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/comments/`
    const stranger = await s.user(`stranger${Date.now()}`, s.roles.Requester, s.B)
    assert.equal((await stranger.api({ method: 'GET', url })).statusCode, 404)
    assert.equal((await stranger.api({ method: 'POST', url, payload: { body: 'x' } })).statusCode, 404)
    assert.equal((await s.approver.api({ method: 'POST', url, payload: { body: 'x' } })).statusCode, 403)
    const a = (await s.requester.api({ method: 'POST', url, payload: { body: 'first' } })).json().data
    const b = (await s.requester.api({ method: 'POST', url, payload: { body: 'second' } })).json().data
    assert.equal((await s.buyer.api({ method: 'DELETE', url: `/api/v3/comments/${a.id}/` })).statusCode, 403)
    assert.equal((await stranger.api({ method: 'DELETE', url: `/api/v3/comments/${a.id}/` })).statusCode, 404)
    assert.equal((await s.requester.api({ method: 'DELETE', url: `/api/v3/comments/${a.id}/` })).statusCode, 204)
    await sql`update comments set created_at = now() - interval '16 minutes' where tenant_id = ${s.tenant.tenantId} and id = ${b.id}`.execute(
      ctx.database.db,
    )
    const late = await s.requester.api({ method: 'DELETE', url: `/api/v3/comments/${b.id}/` })
    assert.equal(late.statusCode, 403, late.body)
    assert.match(late.json().detail, /15 minutes/)
    assert.equal((await s.admin({ method: 'DELETE', url: `/api/v3/comments/${b.id}/` })).statusCode, 204)
    assert.deepEqual((await s.requester.api({ method: 'GET', url })).json().data, [])
  })
})
