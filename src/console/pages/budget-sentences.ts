/**
 * The request form's budget check in words: the form's fields as the check's body (or the sentences that say
 * what to fix first), and the check's answer as a sentence per budget — what it has left, what this request
 * counts against it, and whether that would warn, block or need the owner's approval.
 */
import type { CheckInput, CheckResult } from '../../budgets/schema.ts'
import { visible } from '../../core/visible.ts'
import { fromCents, numericCents } from '../../ledger/money.ts'
import { MAX_LINES } from '../../requests/schema.ts'
import type { BudgetCheckState, BudgetTone } from '../views/budget-check.ts'
import { money } from '../views/format.ts'

const NUMBER = /^\d{1,16}(\.\d{1,4})?$/
const CURRENCY = /^[\p{L}\p{N} ._-]{1,10}$/u

/** A posted id (digits, within PostgreSQL's integer), else undefined. */
const idOf = (text: string): number | undefined =>
  /^\d{1,10}$/.test(text) && Number(text) >= 1 && Number(text) <= 2147483647 ? Number(text) : undefined

/** What the form's fields make: the check's body, or sentences saying what to fix, or why nothing is checked yet. */
export type Draft = { body: CheckInput } | { fix: string[] } | { idle: string }

/**
 * The check's body from the editor's fields (`field(name)`, trimmed, '' when absent): its `rows` lines, each
 * named "Line n" (n from 1); lines ticked for removal and lines without both a quantity and a unit price yet
 * count nothing. `removable`: the fields are as posted (the script's), so a ticked line is skipped here.
 */
export function draftOf(field: (name: string) => string, rows: number, removable: boolean): Draft {
  if (field('location') === '')
    return { idle: 'Choose a location to see the budgets this request would count against.' }
  const fix: string[] = []
  const location = idOf(field('location'))
  if (location === undefined) fix.push('Choose a location from the list.')
  const department = field('department') === '' ? null : idOf(field('department'))
  if (department === undefined) fix.push('Choose a department of the chosen location from the list, or none.')
  const currency = field('currency')
  if (currency !== '' && !CURRENCY.test(currency)) fix.push('Choose a currency from the list.')
  const lines: CheckInput['lines'] = []
  for (let i = 0; i < Math.min(rows, MAX_LINES); i++) {
    const at = (f: string) => field(`lines.${i}.${f}`)
    if (removable && at('remove') === 'on') continue
    const [quantity, unitPrice] = [at('quantity'), at('unit_price')]
    if (quantity === '' || unitPrice === '') continue
    const before = fix.length
    if (!NUMBER.test(quantity))
      fix.push(`Line ${i + 1}: write the quantity as a number with up to 4 decimals, such as 3 or 2.5.`)
    if (!NUMBER.test(unitPrice))
      fix.push(`Line ${i + 1}: write the unit price as a number with up to 4 decimals, such as 19.99.`)
    const account = at('account') === '' ? null : idOf(at('account'))
    if (account === undefined) fix.push(`Line ${i + 1}: choose an account from the list, or none.`)
    if (fix.length === before) lines.push({ account: account!, quantity, unit_price: unitPrice })
  }
  if (fix.length > 0) return { fix }
  if (lines.length === 0)
    return { idle: 'Type a quantity and a unit price on a line to see the budgets this request would count against.' }
  return {
    body: {
      document: 'request',
      location: location!,
      department: department!,
      ...(currency === '' ? {} : { currency }),
      lines,
    },
  }
}

/** The sentences of a refusal (what to fix), as the panel says them. */
export const fixState = (fix: readonly string[]): BudgetCheckState => ({
  outcome: 'error',
  summary: `The budgets cannot be checked yet: ${fix.length === 1 ? 'one thing needs' : 'some things need'} fixing.`,
  items: fix.map((text) => ({ tone: 'fix', text: visible(text) })),
})

const ACTION_SENTENCES: Readonly<Record<string, string>> = {
  warn: 'You can still submit it: the request will carry a warning about this budget.',
  block: 'This budget blocks: the request cannot be submitted until its amounts are lowered or the budget is raised.',
  approve: 'Submitting it adds a step before the other approvals in which the budget’s owner must approve it.',
}

/** One budget in a sentence. */
function sentenceOf(b: CheckResult['budgets'][number], base: string): { tone: BudgetTone; text: string } {
  const [available, asked, over] = [numericCents(b.available), numericCents(b.this_document), numericCents(b.over_by)]
  const amount = (cents: bigint) => money(fromCents(cents < 0n ? -cents : cents), base)
  const name = `Budget “${b.budget.name}”`
  const lead =
    available < 0n ? `${name} is already over by ${amount(available)}` : `${name} has ${amount(available)} left`
  if (asked === 0n) return { tone: 'within', text: `${lead}; this request counts nothing against it.` }
  if (over === 0n)
    return {
      tone: 'within',
      text: `${lead}; this request counts ${amount(asked)} against it and stays within it, leaving ${amount(available - asked)}.`,
    }
  const tone = (['warn', 'block', 'approve'] as const).find((t) => t === b.budget.action) ?? 'warn'
  return {
    tone,
    text: `${lead}; this request counts ${amount(asked)} against it, ${amount(over)} more than it has. ${ACTION_SENTENCES[tone]}`,
  }
}

/** How many of the `n` budgets block the request, as the end of the summary's first sentence. */
const blocking = (blocked: number, n: number) =>
  blocked === 0
    ? ''
    : blocked === n
      ? n === 1
        ? ', which blocks it'
        : `, and ${n === 2 ? 'both' : 'all'} block it`
      : `; ${blocked} of them ${blocked === 1 ? 'blocks' : 'block'} it`

/**
 * The check's answer in words. `conversion`: the request's currency and rate when it is not the base currency
 * (its amounts were converted at that rate).
 */
export function checkedState(
  result: CheckResult,
  base: string,
  conversion?: { currency: string; rate: string },
): BudgetCheckState {
  const items = result.budgets.map((b) => sentenceOf(b, base))
  const n = items.length
  const blocked = items.filter((i) => i.tone === 'block').length
  const converted =
    conversion === undefined
      ? ''
      : `, converted from ${conversion.currency} at today’s rate (${conversion.rate} ${conversion.currency} per ${base})`
  const summary =
    n === 0
      ? 'No active budget covers these lines, so this request counts against none.'
      : `This request would count against ${n} budget${n === 1 ? '' : 's'}${blocking(blocked, n)}. ` +
        `Amounts are in ${base}, the base currency${converted}.`
  return {
    outcome: items.some((i) => i.tone !== 'within') ? 'over' : 'ok',
    summary: visible(summary),
    items: items.map((i) => ({ tone: i.tone, text: visible(i.text) })),
  }
}
