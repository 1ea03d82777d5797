/**
 * Issue #32's write on PostgreSQL, beside its raw floor in the same run: `POST /api/v3/bills/{id}/submit/` of
 * a 50-line draft bill against a 50-line issued and fully received order, matching included (every line
 * matches: no exceptions). Every request submits a fresh draft on an order of its own, both cloned with SQL
 * from a template made through the API, so all do the same work; afterwards the bills submitted must be
 * exactly the 2xx answers. Target: server ≥ 0.5 × the floor's rate.
 * Run: npm run bench -- bills   (BENCH_RUNS=3  BENCH_P2P_REQUESTS=300  BENCH_P2P_CONNECTIONS=8)
 */
import { sql } from 'kysely'
import { main } from './lib/cleanup.ts'
import { fmt } from './lib/report.ts'
import { RUNS } from './lib/settings.ts'
import {
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

async function bills(p: P2P) {
  const order = await issuedOrder(p, '10')
  await p.api('POST', '/api/v3/receipts/', {
    purchase_order: order.id,
    lines: order.lines.map((l) => ({ po_line: l.id, accepted_quantity: '10' })),
  })
  const draft = (
    await p.api('POST', '/api/v3/bills/', {
      number: 'INV-T',
      purchase_order: order.id,
      invoice_date: '2026-11-20',
      lines: order.lines.map((l) => ({ po_line: l.id, quantity: '10' })),
    })
  ).data as { id: number; number: string; status: string; lines: { id: number }[] }
  if (draft.status !== 'draft') throw new Error(`the template bill is ${draft.status}`)
  const n = freshNeeded(RUNS)
  const started = performance.now()
  const { orders, lines: orderLines } = await cloneOrders(p, order.id, n)
  const drafts = await cloneRows(p.db, 'bills', p.tenant.id, draft.id, n, {
    number: `t.number || '-' || g`,
    order_id: `('{${orders.join(',')}}'::int[])[g]`,
  })
  const billLines = await cloneChildren(p.db, 'bill_lines', 'bill_id', p.tenant.id, draft.id, drafts, {
    po_line_id: `(select l2.id from purchase_order_lines l1
      join bills b2 on b2.tenant_id = t.tenant_id and b2.id = m.parent
      join purchase_order_lines l2 on l2.tenant_id = b2.tenant_id and l2.order_id = b2.order_id
        and l2.position = l1.position
      where l1.id = t.po_line_id)`,
  })
  await sql`analyze`.execute(p.db)
  console.log(
    `bills: ${fmt(n)} received ${LINES}-line orders, each with a ${LINES}-line draft bill, cloned in ${secondsSince(started)} s`,
  )
  const requestFor = (i: number) => ({ method: 'POST' as const, path: `/api/v3/bills/${drafts[i]}/submit/` })
  const captured = await captureFresh(p, requestFor(0), requestFor(1))
  const fresh: Fresh[] = drafts.slice(2).map((id, k) => {
    const i = k + 2
    return {
      key: String(id),
      request: requestFor(i),
      pairs: [
        [drafts[1], id],
        [`${draft.number}-2`, `${draft.number}-${i + 1}`],
        [orders[1], orders[i]],
        [`${order.number}-2`, `${order.number}-${i + 1}`],
        ...orderLines[1]!.map((l, j): [unknown, unknown] => [l, orderLines[i]![j]]),
        ...billLines[1]!.map((l, j): [unknown, unknown] => [l, billLines[i]![j]]),
      ],
    }
  })
  console.log(`a submit runs ${captured.statements.length} statements`)
  const r = await runBench(
    p,
    {
      label: 'bills',
      path: '/api/v3/bills/(\\d+)/submit/',
      status: 200,
      captured,
      fresh,
      written: async () =>
        Number(
          (
            await sql<{ n: string }>`select count(*) as n from bills
              where tenant_id = ${p.tenant.id} and status <> 'draft'`.execute(p.db)
          ).rows[0]!.n,
        ),
      async check(f) {
        const row = await sql<{ status: string; match_status: string; billed: string }>`select b.status, b.match_status,
            (select count(*) from purchase_order_lines li where li.tenant_id = b.tenant_id and li.order_id = b.order_id
              and li.billed_quantity = 10) as billed
            from bills b where b.tenant_id = ${p.tenant.id} and b.id = ${Number(f.key)}`.execute(p.db)
        const { status, match_status, billed } = row.rows[0]!
        if (status !== 'approved' || match_status !== 'matched' || Number(billed) !== LINES)
          throw new Error(`bill ${f.key}: ${status}, ${match_status}, ${billed} order lines billed`)
      },
    },
    RUNS,
  )
  report(`POST /api/v3/bills/{id}/submit/ (${LINES} lines, matched)`, r)
}

await main(async () => {
  console.log(header())
  await onPrepared('bills', bills)
})
