/**
 * Two requests submitted at the same instant against a `block` budget that fits only one of them
 * (DECISIONS, "Accounts, budgets and the commitment ledger": the budgets a document adds to are locked before
 * their figures are read, so two documents checked at once take turns): exactly one passes, the other is a
 * 409 naming the budget and stays a draft, and the budget counts the one that passed, once.
 *
 * On PostgreSQL the race is made certain: a connection of the test holds the budget's row until both submits
 * wait on it (each has begun its transaction and asked for the lock), then lets go. On the embedded engine
 * (one connection) the two requests are sent at once and take turns on it.
 */
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import pg from 'pg'
import { useTestApp } from './helpers/app.ts'
import { engineUnderTest } from './helpers/db.ts'
import { draft, setUp, submit, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: Setup
let requester: Person

before(async () => {
  s = await setUp(ctx)
  requester = await s.user('requester', s.roles.Requester, s.A)
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>
const post = (api: Api, url: string, payload?: object) =>
  api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) })

/**
 * Runs `requests` at the same moment. On PostgreSQL the budget `held` is locked by another connection until
 * `requests.length` statements wait on a lock, so both submits have begun before either reads the figures.
 */
async function race<T>(held: number, requests: (() => Promise<T>)[]): Promise<{ answers: T[]; waited: number }> {
  if (engineUnderTest !== 'postgres') return { answers: await Promise.all(requests.map((r) => r())), waited: 0 }
  const holder = new pg.Client({ connectionString: ctx.database.url! })
  await holder.connect()
  try {
    await holder.query('BEGIN')
    await holder.query('SELECT id FROM budgets WHERE id = $1 FOR UPDATE', [held])
    const answers = Promise.all(requests.map((r) => r()))
    const name = new URL(ctx.database.url!).pathname.slice(1)
    let waiting = 0
    for (let waited = 0; ; waited += 20) {
      // Within a transaction PostgreSQL keeps its first snapshot of pg_stat_activity: clear it before each look.
      await holder.query('SELECT pg_stat_clear_snapshot()')
      const { rows } = await holder.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = $1 AND wait_event_type = 'Lock' AND query ILIKE '%budgets%'`,
        [name],
      )
      waiting = rows[0]!.n
      if (waiting >= requests.length) break
      assert.ok(waited < 60_000, `only ${waiting} of ${requests.length} submits reached the budget's lock in a minute`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await holder.query('ROLLBACK')
    return { answers: await answers, waited: waiting }
  } finally {
    await holder.end()
  }
}

describe('a block budget at the same instant', () => {
  test('two submits that each fit but not both: exactly one passes, the other is a 409 and changes nothing', async () => {
    const account = (
      await post(s.admin, '/api/v3/accounts/', { code: 'RACE-1', name: 'Race supplies' }).then((r) => r.json())
    ).data as Json
    const y = new Date().getUTCFullYear()
    const created = await post(s.admin, '/api/v3/budgets/', {
      name: 'Race budget',
      account: account.id,
      period_start: `${y}-01-01`,
      period_end: `${y}-12-31`,
      amount: '100.00',
      action: 'block',
    })
    assert.equal(created.statusCode, 201, created.body)
    const budget = created.json().data as Json
    const lines = [{ description: 'Desk', quantity: '1', unit_price: '60', account: account.id }]
    const first = await draft(requester.api, s.A, lines)
    const second = await draft(requester.api, s.A, lines)

    const { answers, waited } = await race(budget.id as number, [
      () => submit(requester.api, first.id),
      () => submit(requester.api, second.id),
    ])
    if (engineUnderTest === 'postgres') assert.equal(waited, 2, 'both submits waited on the budget together')
    const statuses = answers.map((a) => a.statusCode).sort()
    assert.deepEqual(statuses, [200, 409], answers.map((a) => a.body).join('\n'))
    const refused = answers.find((a) => a.statusCode === 409)!
    assert.equal(refused.json().type, '/problems/conflict')
    assert.match(refused.json().detail, /Race budget.*40\.00 available.*asks 60\.00/)

    const passed = answers[0]!.statusCode === 200 ? first : second
    const blocked = passed === first ? second : first
    const read = async (id: number) =>
      (await requester.api({ method: 'GET', url: `/api/v3/requests/${id}/` })).json<{ data: Json }>().data
    assert.notEqual((await read(passed.id)).status, 'draft')
    assert.equal((await read(blocked.id)).status, 'draft')
    const figures = (await s.admin({ method: 'GET', url: `/api/v3/budgets/${budget.id}/` })).json<{ data: Json }>().data
    const counted = ['pending', 'committed', 'spent'].reduce((sum, k) => sum + Number(figures[k]), 0)
    assert.equal(counted, 60, JSON.stringify(figures))
    assert.equal(figures.available, '40.00')
    const entries = (await s.admin({ method: 'GET', url: `/api/v3/budgets/${budget.id}/entries/` })).json<{
      data: Json[]
    }>().data
    assert.deepEqual(
      entries.map((e) => [e.document.id, e.amount]),
      [[passed.id, '60.00']],
    )
  })
})
