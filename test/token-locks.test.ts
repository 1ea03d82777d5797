/**
 * A token request and a bearer request never wait on an unrelated row lock (issue 46): another transaction
 * holding the owner's `users` row (a deactivation, the last-superuser check) or the application's own row (a
 * revocation) does not hold up `POST /oauth/token`, whose `last_used_at` stamp is skipped rather than waited
 * for (`FOR NO KEY UPDATE SKIP LOCKED`, changing no key column), nor an API request, which only reads.
 *
 * PostgreSQL only (the embedded engine has one connection, so nothing can hold a lock beside a request). Each
 * case holds the lock in a transaction of its own, makes the request, and asserts it was answered while the
 * lock was still held: the holder's transaction is committed only afterwards. Should the request wait, the
 * test sees it waiting in pg_stat_activity, releases the lock and fails naming the statement that waited.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import pg from 'pg'
import { clientFor, sampleTenant, TEST_AUDIENCE, tokenFor, useTestApp } from './helpers/app.ts'
import { engineUnderTest } from './helpers/db.ts'

const ctx = useTestApp()

/**
 * Runs `request` while `holder` holds its lock; resolves with the answer, or fails if the request waits on a
 * lock (then the lock is let go so that nothing hangs).
 */
async function whileHeld(holder: pg.Client, request: () => Promise<LightMyRequestResponse>) {
  const database = new URL(ctx.database.url!).pathname.slice(1)
  let answered = false
  const answer = request().finally(() => (answered = true))
  for (;;) {
    const settled = await Promise.race([answer.then(() => true), new Promise((r) => setTimeout(() => r(false), 20))])
    if (settled || answered) break
    // Inside its transaction the holder would see the first snapshot of pg_stat_activity again and again.
    await holder.query('SELECT pg_stat_clear_snapshot()')
    const { rows } = await holder.query<{ query: string }>(
      `SELECT query FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      [database],
    )
    if (rows.length > 0) {
      await holder.query('ROLLBACK')
      await answer.catch(() => undefined)
      assert.fail(`the request waited on the held lock in: ${rows[0]!.query}`)
    }
  }
  // Answered while the holder's transaction is still open (its lock held): it ends only now.
  const open = await holder.query<{ xid: string | null }>('SELECT pg_current_xact_id_if_assigned()::text AS xid')
  assert.notEqual(open.rows[0]!.xid, null, 'the holder’s transaction (and its row lock) was still open')
  await holder.query('COMMIT')
  return answer
}

async function holding(sql: string, params: unknown[]) {
  const holder = new pg.Client({ connectionString: ctx.database.url! })
  await holder.connect()
  await holder.query('BEGIN')
  const { rowCount } = await holder.query(sql, params)
  assert.equal(rowCount, 1, `the holder locked nothing with: ${sql}`)
  return holder
}

describe('token and bearer requests beside held row locks', { skip: engineUnderTest !== 'postgres' }, () => {
  const lastUsed = async (clientId: string) =>
    (
      await ctx.database.db
        .selectFrom('applications')
        .select('last_used_at')
        .where('client_id', '=', clientId)
        .executeTakeFirstOrThrow()
    ).last_used_at

  const issue = (creds: { client_id: string; client_secret: string }) => () =>
    ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
    })

  test('POST /oauth/token answers, stamping last_used_at, while the owner’s users row is held FOR UPDATE', async () => {
    const tenant = await sampleTenant(ctx)
    const creds = await clientFor(ctx, tenant)
    assert.equal(await lastUsed(creds.client_id), null)
    const holder = await holding('SELECT id FROM users WHERE id = $1 FOR UPDATE', [tenant.users.admin])
    try {
      const answer = await whileHeld(holder, issue(creds))
      assert.equal(answer.statusCode, 200, answer.body)
    } finally {
      await holder.end()
    }
    assert.notEqual(await lastUsed(creds.client_id), null, 'the stamp is written: the users row does not block it')
  })

  test('POST /oauth/token answers while the application’s own row is held; the stamp is skipped, then written', async () => {
    const tenant = await sampleTenant(ctx)
    const creds = await clientFor(ctx, tenant)
    for (const lock of ['FOR UPDATE', 'FOR NO KEY UPDATE']) {
      await ctx.database.db
        .updateTable('applications')
        .set({ last_used_at: null })
        .where('client_id', '=', creds.client_id)
        .execute()
      const holder = await holding(`SELECT id FROM applications WHERE client_id = $1 ${lock}`, [creds.client_id])
      try {
        const answer = await whileHeld(holder, issue(creds))
        assert.equal(answer.statusCode, 200, answer.body)
      } finally {
        await holder.end()
      }
      assert.equal(await lastUsed(creds.client_id), null, `${lock}: the locked row's stamp was skipped, not waited for`)
      const again = await issue(creds)()
      assert.equal(again.statusCode, 200, again.body)
      assert.notEqual(await lastUsed(creds.client_id), null, `${lock}: once the row is free the stamp is written`)
    }
  })

  test('an API request answers while its user’s and application’s rows are held FOR UPDATE', async () => {
    const tenant = await sampleTenant(ctx)
    const creds = await clientFor(ctx, tenant)
    const token = await tokenFor(ctx, creds)
    const holder = await holding(
      'SELECT u.id FROM users u JOIN applications a ON a.tenant_id = u.tenant_id AND a.user_id = u.id WHERE a.client_id = $1 FOR UPDATE',
      [creds.client_id],
    )
    try {
      const answer = await whileHeld(holder, () =>
        ctx.app.inject({
          method: 'GET',
          url: '/api/v3/vendors/',
          headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' },
        }),
      )
      assert.equal(answer.statusCode, 200, answer.body)
    } finally {
      await holder.end()
    }
  })
})
