/**
 * Bills against an outside probe (issue #44; DECISIONS, "Bills and matching" and "Purchase orders and
 * receiving", last bullets): an invoice number is one number however it is written (case, width, dashes,
 * spaces), hidden characters in it are refused, and the database holds the rule too (a race of two creates:
 * one 201, one 409); moving a bill to another location needs accounts_payable at both; the order line's
 * billed counter and the bill's sums stay within their columns (409 or 400 naming the line, never 500); and
 * pay refuses an instant the database cannot hold.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { sql, type Migration } from 'kysely'
import * as migration0030 from '../src/db/migrations/0030_bill_number_key.ts'
import { numberKey } from '../src/bills/number-key.ts'
import { useTestApp } from './helpers/app.ts'
import { engineUnderTest } from './helpers/db.ts'
import { issuedOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import type { Person } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

/** Migration 0030 as the migrator runs it (on any database). */
const numberKeyMigration: Migration = migration0030
const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let ap: number
/** accounts_payable at A. */
let clerk: Person
/** accounts_payable at A, too: the other candidate of the payables step. */
let clerk2: Person
let ready = false
let seq = 0
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
  ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  clerk = await s.user('clerk', ap, s.A)
  clerk2 = await s.user('clerk2', ap, s.A)
})

const post = (api: Api, url: string, payload?: object) =>
  api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) })
const act = (api: Api, id: number, action: string, payload?: object) =>
  post(api, `/api/v3/bills/${id}/${action}/`, payload)
const getBill = async (id: number) => (await s.admin({ method: 'GET', url: `/api/v3/bills/${id}/` })).json().data
const order = async (id: number) =>
  (await s.admin({ method: 'GET', url: `/api/v3/purchase-orders/${id}/` })).json().data
const freeBill = (number: string, extra: object = {}) => ({
  number,
  vendor: s.vendor2,
  location: s.A,
  lines: [{ description: 'Consulting', quantity: '1', unit_price: '100' }],
  ...extra,
})
async function created(body: object, api: Api = clerk.api) {
  const r = await post(api, '/api/v3/bills/', body)
  assert.equal(r.statusCode, 201, r.body)
  return r.json().data
}
async function submitted(id: number, api: Api = clerk.api) {
  const r = await act(api, id, 'submit')
  assert.equal(r.statusCode, 200, r.body)
  return r.json().data
}
/** The vendor's bills whose number contains `text` (the list's search). */
const billsOfVendor2 = async (search: string) =>
  (
    await s.admin({
      method: 'GET',
      url: `/api/v3/bills/?page_size=1000&vendor=${s.vendor2}&search=${encodeURIComponent(search)}`,
    })
  ).json().data as { id: number; number: string }[]
/** The 409's detail names the bill that has the number (and its number as written). */
const names = (id: number, number = '[^"]*') => new RegExp(`already has a bill numbered "${number}" \\(bill ${id}\\)`)
/** The bill's rows as the database holds them (for "nothing changed"). */
const stored = (id: number) =>
  ctx.database.db
    .selectFrom('bills')
    .selectAll()
    .where('tenant_id', '=', s.tenant.tenantId)
    .where('id', '=', id)
    .executeTakeFirstOrThrow()

describe('invoice numbers are compared on a key', () => {
  test('the probe: every spelling of INV-n is the same number (409 naming the bill); hidden characters are 400', async () => {
    const n = ++seq
    const first = await created(freeBill(`INV-${n}`))
    const same = [
      `inv-${n}`, // lower case
      `ＩＮＶ－${n}`, // fullwidth letters and hyphen
      `ＩＮＶ–${n}`, // fullwidth letters and an en dash
      `INV–${n}`, // an en dash
      `INV ${n}`, // an inner space
      `I N V - ${n}`, // inner spaces
      `INV${n}`, // no separator
      `  inv.${n}  `, // padding and a dot
      `INV_${String(n).replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)))}`, // fullwidth digits
    ]
    for (const number of same) {
      const r = await post(clerk.api, '/api/v3/bills/', freeBill(number))
      assert.equal(r.statusCode, 409, `${JSON.stringify(number)}: ${r.body}`)
      assert.match(r.json().detail, names(first.id, `INV-${n}`), r.body)
    }
    const hidden: [string, string][] = [
      [`INV\u200b-${n}`, 'U+200B'], // zero width space
      [`INV-\u200c${n}`, 'U+200C'], // zero width non-joiner
      [`INV-\u200d${n}`, 'U+200D'], // zero width joiner
      [`INV-${n}\u2060`, 'U+2060'], // word joiner
      [`\ufeffINV-${n}`, 'U+FEFF'], // zero width no-break space (BOM)
      [`\u200eINV-${n}`, 'U+200E'], // LRM
      [`INV-${n}\u200f`, 'U+200F'], // RLM
      [`INV-\u061c${n}`, 'U+061C'], // Arabic letter mark
      [`\u202eINV-${n}`, 'U+202E'], // RLO
      [`\u202aINV-${n}\u202c`, 'U+202A'], // LRE … PDF
      [`\u2066INV-${n}\u2069`, 'U+2066'], // LRI … PDI
      [`INV-${n}\u0007`, 'U+0007'], // BEL
      [`INV-${n}\r\n`, 'U+000D'], // CRLF
      [`INV-\n${n}`, 'U+000A'], // a line feed inside
      [`INV-\t${n}`, 'U+0009'], // a tab
      [`INV-${n}\u007f`, 'U+007F'], // DEL
      [`INV-${n}\u0085`, 'U+0085'], // NEL (C1)
      [`INV-\u00ad${n}`, 'U+00AD'], // soft hyphen (another invisible format character)
      [`INV-${n}\u2028`, 'U+2028'], // line separator
    ]
    for (const [number, code] of hidden) {
      const r = await post(clerk.api, '/api/v3/bills/', freeBill(number))
      assert.equal(r.statusCode, 400, `${JSON.stringify(number)}: ${r.body}`)
      const errors = r.json().errors as Record<string, string[]>
      assert.deepEqual(Object.keys(errors), ['number'], r.body)
      assert.match(errors.number!.join(' '), new RegExp(code.replace('+', '\\+')), r.body)
    }
    // Nothing was entered but the first.
    assert.deepEqual(
      (await billsOfVendor2(`${n}`)).filter((b) => numberKey(b.number) === `inv${n}`).map((b) => b.id),
      [first.id],
    )
    // Another vendor may have the same number.
    await created(freeBill(`inv ${n}`, { vendor: s.vendor }))
  })

  test('a number without letters or digits is 400; a key is case folded fully (ß, ẞ, SS) and width folded', async () => {
    const r = await post(clerk.api, '/api/v3/bills/', freeBill('– / –'))
    assert.equal(r.statusCode, 400, r.body)
    assert.deepEqual(Object.keys(r.json().errors), ['number'])
    const n = ++seq
    const first = await created(freeBill(`STRASSE-${n}`))
    for (const number of [`straße-${n}`, `STRAẞE ${n}`, `Strasse${n}`, `ｓｔｒａßｅ${n}`]) {
      const dup = await post(clerk.api, '/api/v3/bills/', freeBill(number))
      assert.equal(dup.statusCode, 409, `${number}: ${dup.body}`)
      assert.match(dup.json().detail, names(first.id))
    }
    // Letters the key keeps apart stay apart: a different letter is a different number.
    await created(freeBill(`STRASSF-${n}`))
    // NFKC can make one character many (U+FDFA is 15 letters): a key past 400 of them is refused, not indexed.
    const long = await post(clerk.api, '/api/v3/bills/', freeBill('\ufdfa'.repeat(27)))
    assert.equal(long.statusCode, 400, long.body)
    assert.match(long.json().errors.number.join(' '), /more than 400 letters and digits/)
    await created(freeBill(`${'\ufdfa'.repeat(26)}-${n}`))
    // The key as documented.
    assert.equal(numberKey('ＩＮＶ–0042'), 'inv0042')
    assert.equal(numberKey('inv-0042'), numberKey('INV 0042'))
    assert.equal(numberKey('\u01c4-\u2460'), 'd\u017e1') // Ǆ (one letter) and ①
    assert.equal(numberKey('İ'), numberKey('i'))
    for (const text of ['ＩＮＶ–0042', 'straße', 'ΐ-1', 'ﬁ 2', '㍿-3'])
      assert.equal(numberKey(numberKey(text)), numberKey(text), `the key of a key is itself: ${text}`)
  })

  test('a bill paid under one spelling cannot be entered (and paid) again under another, nor edited to it', async () => {
    const n = ++seq
    const paid = await submitted((await created(freeBill(`PAY-${n}`))).id)
    assert.equal(paid.status, 'approved')
    const pay = await act(clerk.api, paid.id, 'pay', { payment_reference: `WIRE-${n}` })
    assert.equal(pay.statusCode, 200, pay.body)
    for (const number of [`pay ${n}`, `Pay–${n}`, `ＰＡＹ${n}`]) {
      const again = await post(clerk.api, '/api/v3/bills/', freeBill(number))
      assert.equal(again.statusCode, 409, again.body)
      assert.match(again.json().detail, names(paid.id, `PAY-${n}`))
    }
    // A draft of another number cannot be edited to it either; the draft is as it was.
    const other = await created(freeBill(`OTHER-${n}`))
    const before = await stored(other.id)
    const put = await clerk.api({ method: 'PUT', url: `/api/v3/bills/${other.id}/`, payload: freeBill(`pay.${n}`) })
    assert.equal(put.statusCode, 409, put.body)
    assert.match(put.json().detail, names(paid.id))
    assert.deepEqual(await stored(other.id), before)
    // Editing a bill to another spelling of its own number is no conflict.
    const own = await clerk.api({ method: 'PUT', url: `/api/v3/bills/${other.id}/`, payload: freeBill(`other ${n}`) })
    assert.equal(own.statusCode, 200, own.body)
    assert.equal(own.json().data.number, `other ${n}`)
    // As before, a cancelled bill keeps its number.
    const cancelled = await created(freeBill(`GONE-${n}`))
    assert.equal((await act(clerk.api, cancelled.id, 'cancel')).statusCode, 200)
    const reuse = await post(clerk.api, '/api/v3/bills/', freeBill(`gone ${n}`))
    assert.equal(reuse.statusCode, 409, reuse.body)
    assert.match(reuse.json().detail, names(cancelled.id))
  })

  test('two identical creates at the same instant: one 201, the others 409, never 500', async () => {
    const n = ++seq
    const spellings = [`RACE-${n}`, `RACE-${n}`, `race ${n}`, `ＲＡＣＥ–${n}`]
    const responses = await Promise.all(spellings.map((number) => post(clerk.api, '/api/v3/bills/', freeBill(number))))
    const statuses = responses.map((r) => r.statusCode).sort()
    assert.deepEqual(statuses, [201, 409, 409, 409], responses.map((r) => r.body).join('\n'))
    const winner = responses.find((r) => r.statusCode === 201)!.json().data
    for (const r of responses.filter((x) => x.statusCode === 409))
      assert.match(r.json().detail, names(winner.id), r.body)
  })

  test('the database holds the rule: a create that loses to a twin committed after its check is a 409 naming it', async () => {
    const n = ++seq
    const db = ctx.database.db
    const { currency_id } = await db
      .selectFrom('locations')
      .select('currency_id')
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('id', '=', s.A)
      .executeTakeFirstOrThrow()
    let twin = 0
    let response: Awaited<ReturnType<Api>> | undefined
    await db.transaction().execute(async (tx) => {
      // A twin written outside the service, not yet committed: the create's check does not see it.
      const row = await tx
        .insertInto('bills')
        .values({
          tenant_id: s.tenant.tenantId,
          number: `TWIN-${n}`,
          number_key: `twin${n}`,
          vendor_id: s.vendor2,
          location_id: s.A,
          currency_id,
          subtotal: '0',
          tax: '0',
          total: '0',
          created_by: clerk.userId,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      twin = row.id
      const pending = post(clerk.api, '/api/v3/bills/', freeBill(`twin–${n}`)).then((r) => (response = r))
      await someoneWaits() // the create, on the unique index, for this transaction
      if (engineUnderTest === 'postgres') assert.equal(response, undefined)
      // PGlite has one session: the create waits for this transaction to end before it starts.
      void pending
    })
    for (let i = 0; i < 400 && response === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 25))
    assert.ok(response !== undefined)
    assert.equal(response.statusCode, 409, response.body)
    assert.match(response.json().detail, names(twin, `TWIN-${n}`), response.body)
    // And a row written past the service with a key the vendor has is refused by the index itself.
    await assert.rejects(
      db
        .insertInto('bills')
        .values({
          tenant_id: s.tenant.tenantId,
          number: `twin ${n}`,
          number_key: `twin${n}`,
          vendor_id: s.vendor2,
          location_id: s.A,
          currency_id,
          subtotal: '0',
          tax: '0',
          total: '0',
          created_by: clerk.userId,
        })
        .execute(),
      (error: { code?: string }) => error.code === '23505',
    )
  })

  test('the migration keys existing bills; of bills that already share a key, the first keeps it', async () => {
    const db = ctx.database.db
    const tenantId = s.tenant.tenantId
    const { currency_id } = await db
      .selectFrom('locations')
      .select('currency_id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', s.A)
      .executeTakeFirstOrThrow()
    const n = ++seq
    class Rollback extends Error {}
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        // The table as it was before the migration: no key, the number itself unique per vendor.
        await sql`ALTER TABLE bills DROP COLUMN number_key`.execute(tx)
        await sql`ALTER TABLE bills ADD CONSTRAINT bills_tenant_id_vendor_id_number_key
          UNIQUE (tenant_id, vendor_id, number)`.execute(tx)
        const ids: number[] = []
        for (const [number, vendor] of [
          [`OLD-${n}`, s.vendor2],
          [`old ${n}`, s.vendor2],
          [`ＯＬＤ–${n}`, s.vendor2],
          [`old-${n}`, s.vendor],
          [`O'Brien "${n}", \\ {x}`, s.vendor2],
        ] as const) {
          const row = await sql<{ id: number }>`insert into bills (tenant_id, number, vendor_id, location_id,
              currency_id, created_by) values (${tenantId}, ${number}, ${vendor}, ${s.A}, ${currency_id}, ${clerk.userId})
              returning id`.execute(tx)
          ids.push(row.rows[0]!.id)
        }
        await numberKeyMigration.up(tx)
        const keys = await sql<{ id: number; number_key: string }>`select id, number_key from bills
          where tenant_id = ${tenantId} and id = any(${ids}::int[]) order by id`.execute(tx)
        assert.deepEqual(
          keys.rows.map((r) => r.number_key),
          [`old${n}`, `old${n}#${ids[1]}`, `old${n}#${ids[2]}`, `old${n}`, `obrien${n}x`],
        )
        const nulls = await sql<{ n: number }>`select count(*)::int as n from bills where number_key is null`.execute(
          tx,
        )
        assert.equal(nulls.rows[0]!.n, 0)
        const constraints = await sql<{ name: string }>`select conname as name from pg_constraint
          where conrelid = 'bills'::regclass and contype = 'u'`.execute(tx)
        assert.deepEqual(constraints.rows, [], 'the unique constraint on the number itself is gone')
        const index = await sql<{ def: string }>`select indexdef as def from pg_indexes
          where tablename = 'bills' and indexname = 'bills_number_key'`.execute(tx)
        assert.match(
          index.rows[0]!.def,
          /UNIQUE INDEX bills_number_key ON .*bills.* \(tenant_id, vendor_id, number_key\)/,
        )
        throw new Rollback()
      }),
      Rollback,
    )
  })
})

describe('moving a bill', () => {
  test('needs accounts_payable where it leaves and where it enters; refused, nothing changes', async () => {
    const onlyB = await s.user('payables-b', ap, s.B) // accounts_payable at B only
    const buyerA = await s.user('buyer-ap-b', s.roles.Buyer, s.A, [{ location: s.B, role: ap }]) // sees A, pays at B
    const both = await s.user('payables-ab', ap, s.A, [{ location: s.B, role: ap }])
    const n = ++seq
    const bill = await created(freeBill(`MOVE-${n}`))
    const before = await stored(bill.id)
    const move = (api: Api) =>
      api({ method: 'PUT', url: `/api/v3/bills/${bill.id}/`, payload: freeBill(`MOVE-${n}`, { location: s.B }) })

    // accounts_payable only where it enters, and nothing else at A: the bill is not theirs to see.
    const hidden = await move(onlyB.api)
    assert.equal(hidden.statusCode, 404, hidden.body)
    // Sees it at A (nav_purchase), holds accounts_payable only where it enters.
    const leaving = await move(buyerA.api)
    assert.equal(leaving.statusCode, 403, leaving.body)
    assert.match(leaving.json().detail, new RegExp(`accounts_payable permission at location ${s.A}`))
    // accounts_payable only where it leaves.
    const entering = await move(clerk.api)
    assert.equal(entering.statusCode, 403, entering.body)
    assert.match(entering.json().detail, new RegExp(`accounts_payable permission at location ${s.B}`))
    assert.deepEqual(await stored(bill.id), before)
    assert.equal((await getBill(bill.id)).location.id, s.A)

    const moved = await move(both.api)
    assert.equal(moved.statusCode, 200, moved.body)
    assert.equal(moved.json().data.location.id, s.B)
    // Back again needs the same of the one who moves it: the clerk holds nothing at B.
    const back = await clerk.api({ method: 'PUT', url: `/api/v3/bills/${bill.id}/`, payload: freeBill(`MOVE-${n}`) })
    assert.equal(back.statusCode, 404, back.body)
    const backAgain = await buyerA.api({
      method: 'PUT',
      url: `/api/v3/bills/${bill.id}/`,
      payload: freeBill(`MOVE-${n}`),
    })
    assert.equal(backAgain.statusCode, 403, backAgain.body)
    assert.match(backAgain.json().detail, new RegExp(`accounts_payable permission at location ${s.A}`))
    assert.equal((await getBill(bill.id)).location.id, s.B)
  })
})

/** Resolves when a statement of another session waits on a lock (PostgreSQL); PGlite has one session. */
async function someoneWaits(): Promise<void> {
  if (engineUnderTest !== 'postgres') return
  for (let i = 0; i < 200; i++) {
    const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.database.db)
    if (waiting.rows[0]!.n > 0) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  assert.fail('no statement waited on the lock')
}

describe('moving a bill while it moves', () => {
  test('a move committed meanwhile is judged where the bill is once locked', async () => {
    const created3 = await s.admin({
      method: 'POST',
      url: '/api/v2/locations/',
      payload: {
        name: 'Branch C',
        currency: 'USD',
        phoneOne: '+1 555 0101',
        primary_billing_address: {
          name: 'C',
          addressLineOne: 'C street 1',
          city: 'Springfield',
          postalCode: '12345',
          country: 'United States',
        },
        primary_shipping_address: {
          name: 'C',
          addressLineOne: 'C street 2',
          city: 'Springfield',
          postalCode: '12345',
          country: 'United States',
        },
      },
    })
    assert.equal(created3.statusCode, 201, created3.body)
    const C = created3.json().data.id as number
    // accounts_payable at A and C; at B only the sight of bills (nav_purchase).
    const mover = await s.user('mover-ac', ap, s.A, [
      { location: C, role: ap },
      { location: s.B, role: s.roles.Buyer },
    ])
    const n = ++seq
    const bill = await created(freeBill(`SHIFT-${n}`))
    let response: Awaited<ReturnType<Api>> | undefined
    await ctx.database.db.transaction().execute(async (tx) => {
      // Someone who may moves it to B; not committed when the PUT has checked A and waits for the bill's lock.
      await tx
        .updateTable('bills')
        .set({ location_id: s.B })
        .where('tenant_id', '=', s.tenant.tenantId)
        .where('id', '=', bill.id)
        .execute()
      void mover
        .api({ method: 'PUT', url: `/api/v3/bills/${bill.id}/`, payload: freeBill(`SHIFT-${n}`, { location: C }) })
        .then((r) => (response = r))
      await someoneWaits()
    })
    for (let i = 0; i < 400 && response === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 25))
    assert.ok(response !== undefined)
    assert.equal(response.statusCode, 403, response.body)
    assert.match(response.json().detail, new RegExp(`accounts_payable permission at location ${s.B}`))
    assert.equal((await getBill(bill.id)).location.id, s.B)
  })
})

describe('counters and sums fit their columns', () => {
  const MAX = '9999999999999999'

  test('a second bill whose quantity would carry the line past what billed_quantity holds: 409 naming the line', async () => {
    const po = await issuedOrder(s, [poLine(MAX, '1'), poLine('10', '1')])
    const [big, small] = po.lines.map((l: { id: number }) => l.id)
    const first = await submitted(
      (
        await created({
          number: `BIG-${++seq}`,
          purchase_order: po.id,
          lines: [{ po_line: big, quantity: MAX }],
        })
      ).id,
    )
    assert.equal(first.status, 'pending_approval') // nothing received: an exception for the payables step
    assert.equal((await order(po.id)).lines[0].billed_quantity, MAX)
    const second = await created({
      number: `BIG-${++seq}`,
      purchase_order: po.id,
      lines: [
        { po_line: small, quantity: '1' },
        { po_line: big, quantity: MAX },
      ],
    })
    const before = await stored(second.id)
    const refused = await act(clerk.api, second.id, 'submit')
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, /line 2/i)
    assert.match(refused.json().detail, new RegExp(`order line ${big}`))
    assert.deepEqual(Object.keys(refused.json().errors), ['lines.1.quantity'])
    assert.deepEqual(await stored(second.id), before)
    assert.equal((await getBill(second.id)).status, 'draft')
    const now = await order(po.id)
    assert.equal(now.lines[0].billed_quantity, MAX)
    assert.equal(now.lines[1].billed_quantity, '0')
    // With the first bill cancelled, the second fits.
    assert.equal((await act(clerk.api, first.id, 'cancel')).statusCode, 200)
    const fits = await act(clerk.api, second.id, 'submit')
    assert.equal(fits.statusCode, 200, fits.body)
    assert.equal((await order(po.id)).lines[0].billed_quantity, MAX)
  })

  test('the largest bill: quantities, prices and totals at their bounds are exact; past them is 400', async () => {
    const top = `${MAX}.9999`
    const lines = Array.from({ length: 500 }, () => ({
      description: 'All of it',
      quantity: top,
      unit_price: top,
      tax_rate: '100',
    }))
    const bill = await created(freeBill(`HUGE-${++seq}`, { lines }))
    // (10^16 − 10^-4)² = 10^32 − 2·10^12 + 10^-8, rounded to 2 decimals per line; × 500; tax as much again.
    assert.equal(bill.lines[0].amount, '99999999999999999998000000000000.00')
    assert.equal(bill.subtotal, '49999999999999999999000000000000000.00')
    assert.equal(bill.total, '99999999999999999998000000000000000.00')
    const done = await submitted(bill.id)
    assert.equal(done.status, 'approved')
    const paid = await act(clerk.api, bill.id, 'pay', {})
    assert.equal(paid.statusCode, 200, paid.body)
    for (const field of ['quantity', 'unit_price', 'tax_rate']) {
      const line = { description: 'x', quantity: '1', unit_price: '1', [field]: `1${MAX}` }
      const r = await post(clerk.api, '/api/v3/bills/', freeBill(`OVER-${++seq}`, { lines: [line] }))
      assert.equal(r.statusCode, 400, r.body)
      assert.deepEqual(Object.keys(r.json().errors), [`lines.0.${field}`])
    }
  })

  test('pay: an instant the database cannot hold is 400 naming paid_at; the bill stays approved', async () => {
    const bill = await submitted((await created(freeBill(`WHEN-${++seq}`))).id)
    for (const paid_at of [
      '9999-12-31T23:59:60Z', // a leap second that carries into year 10000
      '9999-12-31T23:00:00-02:00', // year 10000 in UTC
      '9999-12-31T23:59:59.9999996Z', // rounded to the microsecond: year 10000
      '0001-01-01T00:30:00+01:00', // year 0 in UTC
      '2026-01-01T10:00:00+23:59', // an offset PostgreSQL does not take
      '2026-01-01T10:00:00-16:00',
    ]) {
      const r = await act(clerk.api, bill.id, 'pay', { paid_at })
      assert.equal(r.statusCode, 400, `${paid_at}: ${r.body}`)
      assert.deepEqual(Object.keys(r.json().errors), ['paid_at'], r.body)
    }
    assert.equal((await getBill(bill.id)).status, 'approved')
    const ok = await act(clerk.api, bill.id, 'pay', { paid_at: '2026-06-30T23:59:60Z' })
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().data.paid_at, '2026-07-01T00:00:00.000Z')
  })
})

// The other payables holder is needed for the exception step above.
void (() => clerk2)
