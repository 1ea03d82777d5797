/** Invitations: queued with the user, delivered over real SMTP, retried on failure, accepted by link. */
import assert from 'node:assert/strict'
import net from 'node:net'
import { after, before, describe, test } from 'node:test'
import { SMTPServer } from 'smtp-server'
import { deliverDue, smtpTransport } from '../src/mail/smtp.service.ts'
import { signedIn, testApp, type TestContext } from './helpers/app.ts'

let ctx: TestContext
const received: { to: string; body: string }[] = []
let smtp: SMTPServer
let smtpPort = 0

before(async () => {
  ctx = await testApp()
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let body = ''
      stream.on('data', (chunk: Buffer) => (body += chunk.toString()))
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), body })
        done()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  smtpPort = (smtp.server.address() as net.AddressInfo).port
})
after(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()))
  await ctx.close()
})

/** A port with nothing listening: delivery to it fails at once. */
async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('invitation e-mail', () => {
  test('queued with the user, retried after a failed delivery, received by a real SMTP server, accepted by its link', async () => {
    const { api, tenant } = await signedIn(ctx)
    // The sample tenant's demo orders were e-mailed to their vendor when it was made: this test counts its own mail.
    await ctx.database.db.deleteFrom('email_outbox').where('tenant_id', '=', tenant.tenantId).execute()
    const created = await api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: [{ email: 'newbie@example.org', first_name: 'New', send_invitation_email: true }],
    })
    assert.equal(created.statusCode, 201)
    const profileId = created.json().data[0].id
    const profile = async () => (await api({ method: 'GET', url: `/api/v3/users/${profileId}/` })).json()
    assert.equal(
      (await api({ method: 'GET', url: '/api/v3/users/?pending_invite=true' })).json().data[0].email,
      'newbie@example.org',
    )

    const outbox = () =>
      ctx.database.db.selectFrom('email_outbox').selectAll().where('tenant_id', '=', tenant.tenantId).execute()
    assert.equal((await outbox())[0]!.status, 'queued')

    const broken = await deliverDue(
      ctx.database.db,
      smtpTransport(`smtp://127.0.0.1:${await closedPort()}`),
      'procurement@test',
    )
    assert.deepEqual(broken, { sent: 0, failed: 1 })
    const afterFailure = (await outbox())[0]!
    assert.equal(afterFailure.status, 'queued', 'a failed delivery stays queued')
    assert.equal(afterFailure.attempts, 1)
    assert.ok(afterFailure.last_error)
    assert.ok(afterFailure.next_attempt_at > new Date(), 'and waits before the next attempt')
    assert.equal((await profile()).data.is_active, true, 'the user is untouched')

    await ctx.database.db
      .updateTable('email_outbox')
      .set({ next_attempt_at: new Date(0) })
      .where('tenant_id', '=', tenant.tenantId)
      .execute()
    const delivered = await deliverDue(
      ctx.database.db,
      smtpTransport(`smtp://127.0.0.1:${smtpPort}`),
      'procurement@test',
    )
    assert.deepEqual(delivered, { sent: 1, failed: 0 })
    assert.equal((await outbox())[0]!.status, 'sent')
    const mail = received.find((m) => m.to === 'newbie@example.org')
    assert.ok(mail, 'the SMTP server received the invitation')
    const link = /http:\/\/\S+\/console\/setup\/([A-Za-z0-9_-]+)/.exec(mail.body.replace(/=\r?\n/g, ''))
    assert.ok(link, 'with an acceptance link')

    const again = await deliverDue(ctx.database.db, smtpTransport(`smtp://127.0.0.1:${smtpPort}`), 'procurement@test')
    assert.deepEqual(again, { sent: 0, failed: 0 }, 'sent mail is not sent twice')

    const accept = await ctx.app.inject({ method: 'POST', url: `/invitations/${link[1]!}/accept` })
    assert.equal(accept.statusCode, 200)
    assert.deepEqual(accept.json().data, { email: 'newbie@example.org', pending_invite: false })
    assert.equal((await profile()).data.email, 'newbie@example.org')
    assert.equal(
      (await api({ method: 'GET', url: '/api/v3/users/?pending_invite=true' })).json().metadata.pagination.count,
      0,
    )
    assert.equal(
      (await ctx.app.inject({ method: 'POST', url: `/invitations/${link[1]!}/accept` })).statusCode,
      404,
      'a link works once',
    )
  })

  test('without send_invitation_email nothing is queued', async () => {
    const { api, tenant } = await signedIn(ctx)
    await api({ method: 'POST', url: '/api/v3/users/', payload: [{ email: 'quiet@example.org' }] })
    const rows = await ctx.database.db
      .selectFrom('email_outbox')
      .select('id')
      .where('tenant_id', '=', tenant.tenantId)
      .where('to_address', '=', 'quiet@example.org')
      .execute()
    assert.equal(rows.length, 0)
  })
})
