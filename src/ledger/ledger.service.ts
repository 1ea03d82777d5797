/**
 * The commitment ledger (DECISIONS, "Accounts, budgets and the commitment ledger"): the one record of what
 * counts against budgets. A document module says what each of its lines counts *now*, by stage, in its own
 * currency (`LedgerLine`); `planLedger` compares that with what the document's entries already count and
 * returns the moves that make them equal (reversing entries for what no longer counts, new entries for what
 * now does); `writeLedger` appends them, in the document's own transaction. So a line never counts twice: a
 * move to the next document is the earlier document's line going to 0 (reason `ordered`, `billed`, …) and the
 * next document's line counting what it now holds.
 *
 * The rate: a line counts at the rate in force when it first counted, and keeps it — its own first entry's,
 * else (`from`) the first entry's of the line it continues (a request line for an order line, an order line for
 * a bill line) when the currency is the same, else the currency's rate now. Base amount = original ÷ rate,
 * rounded half-up to 2 decimals (core/decimal.ts `toBase`).
 */
import type { Kysely } from 'kysely'
import { parseRate, toBase } from '../core/decimal.ts'
import type { DB } from '../db/schema.ts'
import { fromCents, numericCents } from './money.ts'
import * as repo from './repository.ts'
import type { LedgerStage } from './tables.ts'

export type { LedgerStage } from './tables.ts'

/** The document the entries belong to. */
export interface LedgerDocument {
  /** `request`, `purchase_order`, `bill`, `expense_report`, `travel_request`, `payment_request`, … */
  type: string
  id: number
  /** How people know it (`PO-000042`, the invoice number); '' when it has none. */
  number: string
}

/** What one line of the document counts now (amounts in the document's currency, unsigned; absent: 0). */
export interface LedgerLine {
  line: number
  location: number
  department: number | null
  account: number | null
  /** YYYY-MM-DD: the date a budget's period is compared with (DECISIONS, `budget_date`). */
  budget_date: string
  /** The currency's name (`EUR`) and its rate now (units per one unit of the base currency). */
  currency: string
  rate: string
  /** The line this one continues: its first rate carries over when the currency is the same. */
  from?: { type: string; id: number; line: number } | undefined
  pending?: string | undefined
  committed?: string | undefined
  spent?: string | undefined
}

/** One entry to append: a signed amount in the base currency at one stage and place. */
export type LedgerMove = Omit<repo.EntryValues, 'reason'>

const STAGES: readonly LedgerStage[] = ['pending', 'committed', 'spent']

const placeKey = (m: {
  line_id: number
  stage: string
  location_id: number
  department_id: number | null
  account_id: number | null
  budget_date: string
  currency: string
  rate: string
}) =>
  JSON.stringify([
    m.line_id,
    m.stage,
    m.location_id,
    m.department_id,
    m.account_id,
    m.budget_date,
    m.currency,
    parseRate(m.rate).toString(),
  ])

/**
 * The moves that make the document's entries count what `lines` say (lines it had and `lines` leave out count
 * 0). Writes nothing: a check may look at the moves first (budgets/check.service.ts).
 */
export async function planLedger(
  tx: Kysely<DB>,
  tenantId: number,
  doc: LedgerDocument,
  lines: readonly LedgerLine[],
): Promise<LedgerMove[]> {
  const existing = await repo.documentCounts(tx, tenantId, doc.type, doc.id)
  const own = await repo.firstRates(tx, tenantId, doc.type, doc.id)
  const inherited = new Map<string, Map<number, { currency: string; rate: string }>>()
  const have = new Map<string, { base: bigint; original: bigint; row: (typeof existing)[number] }>()
  for (const row of existing)
    have.set(placeKey(row), { base: numericCents(row.amount), original: numericCents(row.original_amount), row })
  const moves: LedgerMove[] = []
  const wanted = new Set<string>()
  for (const line of lines) {
    let rate = line.rate
    const first = own.get(line.line)
    if (first !== undefined && first.currency === line.currency) rate = first.rate
    else if (line.from !== undefined) {
      const key = `${line.from.type}:${line.from.id}`
      let rates = inherited.get(key)
      if (rates === undefined) {
        rates = await repo.firstRates(tx, tenantId, line.from.type, line.from.id)
        inherited.set(key, rates)
      }
      const earlier = rates.get(line.from.line)
      if (earlier !== undefined && earlier.currency === line.currency) rate = earlier.rate
    }
    for (const stage of STAGES) {
      const amount = line[stage]
      const place = {
        line_id: line.line,
        stage,
        location_id: line.location,
        department_id: line.department,
        account_id: line.account,
        budget_date: line.budget_date,
        currency: line.currency,
        rate,
      }
      const key = placeKey(place)
      const original = amount === undefined ? 0n : numericCents(amount)
      if (original === 0n) continue
      wanted.add(key)
      const base =
        numericCents(toBase(fromCents(original < 0n ? -original : original), rate)) * (original < 0n ? -1n : 1n)
      const now = have.get(key)
      const dBase = base - (now?.base ?? 0n)
      const dOriginal = original - (now?.original ?? 0n)
      if (dBase !== 0n || dOriginal !== 0n)
        moves.push({
          ...place,
          amount: fromCents(dBase),
          original_amount: fromCents(dOriginal),
          document_type: doc.type,
          document_id: doc.id,
          document_number: doc.number,
        })
    }
  }
  const reversals: LedgerMove[] = []
  for (const [key, now] of have) {
    if (wanted.has(key) || (now.base === 0n && now.original === 0n)) continue
    const r = now.row
    reversals.push({
      line_id: r.line_id,
      stage: r.stage,
      location_id: r.location_id,
      department_id: r.department_id,
      account_id: r.account_id,
      budget_date: r.budget_date,
      currency: r.currency,
      rate: r.rate,
      amount: fromCents(-now.base),
      original_amount: fromCents(-now.original),
      document_type: doc.type,
      document_id: doc.id,
      document_number: doc.number,
    })
  }
  // What no longer counts first, then what now does: newest first, a move reads "to …, from …".
  return [...reversals, ...moves]
}

/** Appends the moves with the action that wrote them (`submitted`, `approved`, `ordered`, `billed`, …). */
export const writeLedger = (tx: Kysely<DB>, tenantId: number, moves: readonly LedgerMove[], reason: string) =>
  repo.insertEntries(
    tx,
    tenantId,
    moves.map((m) => ({ ...m, reason })),
  )

/** planLedger + writeLedger: for a move no budget checks (an approval, a rejection, a cancellation, …). */
export async function syncLedger(
  tx: Kysely<DB>,
  tenantId: number,
  doc: LedgerDocument,
  lines: readonly LedgerLine[],
  reason: string,
): Promise<LedgerMove[]> {
  const moves = await planLedger(tx, tenantId, doc, lines)
  await writeLedger(tx, tenantId, moves, reason)
  return moves
}

/** Every line of the document back to 0 (reversing entries): a cancellation, a rejection. */
export const clearLedger = (tx: Kysely<DB>, tenantId: number, doc: LedgerDocument, reason: string) =>
  syncLedger(tx, tenantId, doc, [], reason)

/** The currency's name and rate now, by id (what a `LedgerLine` needs). */
export async function currencyOf(tx: Kysely<DB>, tenantId: number, currencyId: number) {
  const row = await repo.currency(tx, tenantId, currencyId)
  if (row === undefined) throw new Error(`no currency ${currencyId}`)
  return row
}

/** Today's date in UTC, YYYY-MM-DD. */
export const todayUtc = (): string => new Date().toISOString().slice(0, 10)

/** A time stamp's date in UTC, YYYY-MM-DD. */
export const dateUtc = (at: Date | string | null | undefined): string =>
  at === null || at === undefined ? todayUtc() : new Date(at).toISOString().slice(0, 10)
