/**
 * Fuzzing the money flow and SCIM with bodies that pass their schemas (issue 44): the outside probe's 500s
 * came from valid requests whose values were at the edges — sums that overflow a column, percentages past
 * what a column holds, concurrent identical creates. Orders, receipts, returns, voids, bills and their
 * transitions, settings and SCIM users and groups get generated values (the largest quantity, the smallest
 * fraction, prototype-member names, lone surrogates, control and bidi characters, long text); none may get a
 * 5xx, and every refusal is a 4xx problem (SCIM: its error schema).
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import fc from 'fast-check'
import { useTestApp } from './helpers/app.ts'
import { issuedOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let clerk: Api
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable', 'nav_purchase', 'nav_receive'], 8)
  clerk = (await s.user('fuzz-clerk', ap, s.A)).api
})

const MAX = '9999999999999999'
const decimal = fc.oneof(
  fc.constantFrom('0', '0.0001', '1', '10', MAX, `${MAX}.9999`, '5000000000000000', '1000', '1000.0001', '100000'),
  fc.integer({ min: 0, max: 1_000_000 }).map(String),
  fc.tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 9999 })).map(([a, b]) => `${a}.${b}`),
)
const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'x\ud800',
    '\u202eRLO',
    'a\u200bb',
    'INV\r\n1',
    '\u0007',
    'ＩＮＶ–0042',
    'x'.repeat(1000),
  ),
)
const outcome = (label: string, status: number, body: string, type: unknown) => {
  assert.ok(status < 500, `${label} → ${status}: ${body.slice(0, 300)}`)
  if (status >= 400)
    assert.match(String(type), /application\/(problem|scim)\+json/, `${label} → ${status} ${String(type)}`)
}

test('orders, receipts, returns, voids, bills and settings with edge values: never a 5xx', async () => {
  const po = await issuedOrder(s, [poLine(MAX, '1'), poLine('10', '5')])
  const lines = po.lines.map((l: { id: number }) => l.id) as number[]
  const receipts: number[] = []
  const bills: number[] = []
  const call = async (api: Api, method: 'POST' | 'PUT', url: string, payload?: object) => {
    const r = await api({ method, url, ...(payload === undefined ? {} : { payload }) })
    outcome(
      `${method} ${url} ${JSON.stringify(payload)?.slice(0, 200)}`,
      r.statusCode,
      r.body,
      r.headers['content-type'],
    )
    return r
  }
  const step = fc.oneof(
    fc.record({ kind: fc.constant('settings' as const), a: decimal, b: decimal, c: decimal, three: fc.boolean() }),
    fc.record({
      kind: fc.constant('receive' as const),
      type: fc.constantFrom('receipt', 'return'),
      line: fc.constantFrom(...lines),
      accepted: decimal,
      rejected: decimal,
    }),
    fc.record({ kind: fc.constant('void' as const), pick: fc.nat() }),
    fc.record({
      kind: fc.constant('bill' as const),
      number: text,
      line: fc.constantFrom(...lines),
      quantity: decimal,
      price: fc.option(decimal),
    }),
    fc.record({
      kind: fc.constant('bill-act' as const),
      pick: fc.nat(),
      action: fc.constantFrom('submit', 'pay', 'cancel'),
    }),
    fc.record({
      kind: fc.constant('order' as const),
      quantity: decimal,
      price: decimal,
      tax: decimal,
      notes: text,
      currency: fc.constantFrom(undefined, 'USD', 'EUR', 'XXX'),
    }),
  )
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
      for (const st of steps) {
        if (st.kind === 'settings')
          await call(s.admin, 'PUT', '/api/v3/procurement-settings/', {
            over_receipt_tolerance_percent: st.a,
            po_approval_tolerance_percent: st.b,
            price_tolerance_percent: st.c,
            match_mode: st.three ? 'three_way' : 'two_way',
          })
        else if (st.kind === 'receive') {
          const r = await call(s.buyer.api, 'POST', '/api/v3/receipts/', {
            purchase_order: po.id,
            type: st.type,
            lines: [{ po_line: st.line, accepted_quantity: st.accepted, rejected_quantity: st.rejected }],
          })
          if (r.statusCode === 201) receipts.push(r.json().data.id)
        } else if (st.kind === 'void' && receipts.length > 0)
          await call(s.buyer.api, 'POST', `/api/v3/receipts/${receipts[st.pick % receipts.length]}/void/`)
        else if (st.kind === 'bill') {
          const r = await call(clerk, 'POST', '/api/v3/bills/', {
            number: st.number,
            purchase_order: po.id,
            lines: [
              { po_line: st.line, quantity: st.quantity, ...(st.price === null ? {} : { unit_price: st.price }) },
            ],
          })
          if (r.statusCode === 201) bills.push(r.json().data.id)
        } else if (st.kind === 'bill-act' && bills.length > 0)
          await call(clerk, 'POST', `/api/v3/bills/${bills[st.pick % bills.length]}/${st.action}/`)
        else if (st.kind === 'order') {
          const current = (await s.admin({ method: 'GET', url: `/api/v3/purchase-orders/${po.id}/` })).json().data
          const r = await s.buyer.api({
            method: 'PUT',
            url: `/api/v3/purchase-orders/${po.id}/`,
            headers: { 'if-match': `"${current.version}"` },
            payload: {
              vendor: s.vendor,
              location: s.A,
              notes: st.notes,
              ...(st.currency === undefined ? {} : { currency: st.currency }),
              lines: [
                ...current.lines.map((l: { id: number; quantity: string }) => ({
                  id: l.id,
                  quantity: l.quantity,
                  unit_price: '1',
                })),
                poLine(st.quantity, st.price, st.tax),
              ],
            },
          })
          outcome(`revise ${st.quantity}×${st.price}`, r.statusCode, r.body, r.headers['content-type'])
        }
      }
    }),
    { numRuns: 250 },
  )
})

const SCIM = 'application/scim+json'
test('SCIM users and groups with edge values, and identical creates at once: never a 5xx', async () => {
  const made = await s.admin({ method: 'POST', url: '/api/v3/scim-tokens/', payload: { description: 'fuzz' } })
  assert.equal(made.statusCode, 201, made.body)
  const token = made.json().data.token as string
  const scim = async (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'GET', url: string, payload?: unknown) => {
    const r = await ctx.app.inject({
      method,
      url: `/scim/v2${url}`,
      headers: { host: s.tenant.host, authorization: `Bearer ${token}`, 'content-type': SCIM },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    })
    outcome(
      `${method} ${url} ${JSON.stringify(payload)?.slice(0, 200)}`,
      r.statusCode,
      r.body,
      r.headers['content-type'],
    )
    return r
  }
  const email = fc.oneof(
    fc.emailAddress(),
    fc.constantFrom(
      '\u212aim@example.test',
      'KIM@EXAMPLE.TEST',
      'a@b',
      'x\ud800@example.test',
      '__proto__@example.test',
    ),
  )
  const user = fc.record({
    userName: email,
    name: fc.record({ givenName: text, familyName: text }),
    active: fc.constantFrom(true, false, 'False', 'true', 0, null),
    externalId: fc.option(text),
  })
  const op = fc.record({
    op: fc.constantFrom('add', 'Replace', 'remove', 'copy'),
    path: fc.option(
      fc.constantFrom('active', 'name.givenName', 'emails[type eq "work"].value', 'members', '__proto__', 'x['),
    ),
    value: fc.oneof(text, fc.boolean(), fc.constant({ active: 'False' }), fc.constant([{ value: '1' }])),
  })
  const ids: string[] = []
  const statuses = new Map<number, number>()
  await fc.assert(
    fc.asyncProperty(user, fc.array(op, { maxLength: 4 }), text, async (u, ops, group) => {
      const created = await scim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], ...u })
      statuses.set(created.statusCode, (statuses.get(created.statusCode) ?? 0) + 1)
      if (created.statusCode === 201) ids.push(created.json().id)
      const target = ids.length > 0 ? ids[ids.length - 1] : 'nope'
      await scim('PATCH', `/Users/${target}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: ops,
      })
      await scim('POST', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: group })
    }),
    { numRuns: 150 },
  )
  // The generator reaches the service: some users are made, some refused for what they carry.
  assert.ok((statuses.get(201) ?? 0) > 10 && (statuses.get(400) ?? 0) > 10, JSON.stringify([...statuses]))
  // Twelve identical creates at once: one 201, the rest 409 uniqueness.
  for (const resource of ['Users', 'Groups']) {
    const body =
      resource === 'Users'
        ? {
            schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
            userName: `race-${Date.now()}@example.test`,
            name: { givenName: 'R', familyName: 'C' },
          }
        : { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: `race-${Date.now()}` }
    const answers = await Promise.all(Array.from({ length: 12 }, () => scim('POST', `/${resource}`, body)))
    const codes = answers.map((a) => a.statusCode).sort()
    assert.deepEqual(codes, [201, ...Array<number>(11).fill(409)], `${resource}: ${codes.join(',')}`)
  }
})
