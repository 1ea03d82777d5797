/**
 * Issue #31's writes on PostgreSQL, each beside its raw floor in the same run: (a) `POST /api/v3/receipts/`
 * receiving 1 unit on every line of a 50-line issued order, (b) `POST /api/v3/requests/{id}/purchase-orders/`
 * making the order of a 50-line approved request. Every request names a fresh order or request of its own,
 * cloned with SQL from a template made through the API (so all do the same work); afterwards the receipts and
 * orders written must be exactly the 201s. Target: server ≥ 0.5 × the floor's rate.
 * Run: npm run bench -- orders   (BENCH_RUNS=3  BENCH_P2P_REQUESTS=300  BENCH_P2P_CONNECTIONS=8
 * BENCH_ORDERS_PARTS=receipts,from-request)
 */
import { sql } from 'kysely'
import { main } from './lib/cleanup.ts'
import { fmt } from './lib/report.ts'
import { RUNS } from './lib/settings.ts'
import {
  basics,
  captureFresh,
  cloneChildren,
  cloneOrders,
  cloneRows,
  header,
  freshNeeded,
  issuedOrder,
  LINES,
  onPrepared,
  report,
  runBench,
  secondsSince,
  type Fresh,
  type P2P,
} from './p2p/harness.ts'

const parts = (process.env.BENCH_ORDERS_PARTS ?? 'receipts,from-request').split(',')

async function receipts(p: P2P) {
  const template = await issuedOrder(p, '10')
  const n = freshNeeded(RUNS)
  const started = performance.now()
  const { orders, lines } = await cloneOrders(p, template.id, n)
  console.log(`receipts: ${fmt(n)} issued ${LINES}-line orders cloned in ${secondsSince(started)} s`)
  const numbers = new Map(
    (
      await p.db
        .selectFrom('purchase_orders')
        .select(['id', 'number'])
        .where('tenant_id', '=', p.tenant.id)
        .where('id', 'in', orders.slice(0, 2))
        .execute()
    ).map((r) => [r.id, r.number]),
  )
  const requestFor = (i: number) => ({
    method: 'POST' as const,
    path: '/api/v3/receipts/',
    body: JSON.stringify({
      purchase_order: orders[i],
      packing_slip: 'PS-1',
      lines: lines[i]!.map((id) => ({ po_line: id, accepted_quantity: '1' })),
    }),
  })
  const captured = await captureFresh(p, requestFor(0), requestFor(1))
  const capturedNumber = numbers.get(orders[1]!)!
  const fresh: Fresh[] = orders.slice(2).map((id, k) => {
    const i = k + 2
    return {
      key: String(id),
      request: requestFor(i),
      pairs: [
        [orders[1], id],
        [capturedNumber, `${template.number}-${i + 1}`],
        ...lines[1]!.map((l, j): [unknown, unknown] => [l, lines[i]![j]]),
      ],
    }
  })
  console.log(`a receipt runs ${captured.statements.length} statements`)
  const r = await runBench(
    p,
    {
      label: 'receipts',
      path: '/api/v3/receipts/',
      bodyKey: 'purchase_order',
      captured,
      fresh,
      written: async () =>
        Number(
          (await sql<{ n: string }>`select count(*) as n from receipts where tenant_id = ${p.tenant.id}`.execute(p.db))
            .rows[0]!.n,
        ),
      async check(f) {
        const orderId = Number(f.key)
        const row = await sql<{ receipts: string; lines: string; received: string }>`select
            (select count(*) from receipts where tenant_id = ${p.tenant.id} and order_id = ${orderId}) as receipts,
            (select count(*) from receipt_lines rl join receipts r on r.tenant_id = rl.tenant_id and r.id = rl.receipt_id
              where r.tenant_id = ${p.tenant.id} and r.order_id = ${orderId}) as lines,
            (select count(*) from purchase_order_lines where tenant_id = ${p.tenant.id} and order_id = ${orderId}
              and received_quantity = 1) as received`.execute(p.db)
        const { receipts: made, lines: written, received } = row.rows[0]!
        if (Number(made) !== 1 || Number(written) !== LINES || Number(received) !== LINES)
          throw new Error(`order ${orderId}: ${made} receipts, ${written} lines, ${received} lines received`)
      },
    },
    RUNS,
  )
  report(`POST /api/v3/receipts/ (${LINES} lines)`, r)
}

async function fromRequest(p: P2P) {
  const { vendor, location } = await basics(p)
  const lines = Array.from({ length: LINES }, (_, i) => ({
    description: `Item ${i + 1}`,
    quantity: '2',
    unit_price: '5',
    vendor,
  }))
  const draft = (await p.api('POST', '/api/v3/requests/', { location, lines })).data
  const submitted = (await p.api('POST', `/api/v3/requests/${draft.id as number}/submit/`)).data
  if (submitted.status !== 'approved') throw new Error(`the template request is ${submitted.status as string}`)
  const template = draft.id as number
  const n = freshNeeded(RUNS)
  const started = performance.now()
  const requests = await cloneRows(p.db, 'purchase_requests', p.tenant.id, template, n, {
    uuid: 'gen_random_uuid()',
  })
  const requestLines = await cloneChildren(p.db, 'request_lines', 'request_id', p.tenant.id, template, requests)
  console.log(`from-request: ${fmt(n)} approved ${LINES}-line requests cloned in ${secondsSince(started)} s`)
  const uuids = new Map(
    (
      await p.db
        .selectFrom('purchase_requests')
        .select(['id', 'uuid'])
        .where('tenant_id', '=', p.tenant.id)
        .where('id', 'in', requests)
        .execute()
    ).map((r) => [r.id, r.uuid]),
  )
  const requestFor = (i: number) => ({
    method: 'POST' as const,
    path: `/api/v3/requests/${requests[i]}/purchase-orders/`,
    body: '{}',
  })
  const captured = await captureFresh(p, requestFor(0), requestFor(1))
  const fresh: Fresh[] = requests.slice(2).map((id, k) => {
    const i = k + 2
    return {
      key: String(id),
      request: requestFor(i),
      pairs: [
        [requests[1], id],
        [uuids.get(requests[1]!), uuids.get(id)],
        ...requestLines[1]!.map((l, j): [unknown, unknown] => [l, requestLines[i]![j]]),
      ],
    }
  })
  console.log(`orders from a request run ${captured.statements.length} statements`)
  const r = await runBench(
    p,
    {
      label: 'from-request',
      path: '/api/v3/requests/(\\d+)/purchase-orders/',
      captured,
      fresh,
      written: async () =>
        Number(
          (
            await sql<{ n: string }>`select count(*) as n from purchase_orders
              where tenant_id = ${p.tenant.id} and request_id is not null`.execute(p.db)
          ).rows[0]!.n,
        ),
      async check(f) {
        const row = await sql<{ orders: string; lines: string }>`select count(distinct po.id) as orders,
            count(li.id) as lines from purchase_orders po
            join purchase_order_lines li on li.tenant_id = po.tenant_id and li.order_id = po.id
            where po.tenant_id = ${p.tenant.id} and po.request_id = ${Number(f.key)}`.execute(p.db)
        const { orders, lines: written } = row.rows[0]!
        if (Number(orders) !== 1 || Number(written) !== LINES)
          throw new Error(`request ${f.key}: ${orders} orders with ${written} lines`)
      },
    },
    RUNS,
  )
  report(`POST /api/v3/requests/{id}/purchase-orders/ (${LINES} lines)`, r)
}

await main(async () => {
  console.log(header())
  for (const part of parts) {
    console.log(`\n### ${part}`)
    const bench = part === 'receipts' ? receipts : part === 'from-request' ? fromRequest : undefined
    if (bench === undefined) throw new Error(`no part ${part}; have receipts, from-request`)
    await onPrepared(part.replace(/\W/g, ''), bench)
  }
})
