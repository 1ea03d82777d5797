/**
 * Set-up → Procurement settings (DECISIONS, "Daily use of the console"): the tolerances, the match mode and
 * the receipt threshold of `/api/v3/procurement-settings/`, on one form held to the API's own schema and
 * written through its service (the same permission check, the same 0–1000 range, audited with "console" as
 * the channel). A refusal shows on the form with what was typed; a save says "Saved.".
 */
import { bodyChecker } from '../../http/body-check.ts'
import { SettingsInput } from '../../procurement-settings/schema.ts'
import { getSettings, putSettings } from '../../procurement-settings/service.ts'
import type { FieldErrors } from '../../core/problem.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { FormState, Values } from '../views/forms.ts'
import { procurementSettingsView, type Field } from '../views/setup.ts'
import { attempt, Done, errorsFor, FormBody, valuesOf } from './forms.ts'

const PERCENT = 'A number of percent with up to 4 decimals, from 0 to 1000, e.g. 2.5.'
const FIELDS: readonly Field[] = [
  {
    kind: 'text',
    name: 'over_receipt_tolerance_percent',
    label: 'Over-receipt tolerance (%)',
    hint: `How much more than ordered a line may receive, in percent of its ordered quantity: 0 accepts no more than was ordered, 10 accepts 110 against 100. ${PERCENT}`,
    required: true,
    maxlength: 9,
  },
  {
    kind: 'text',
    name: 'po_approval_tolerance_percent',
    label: 'Order approval tolerance (%)',
    hint: `How far, in percent, an order may exceed its request’s approved total — and a revision the order’s last approved total — and still need no approval; beyond it, the purchase-order approval rules decide. ${PERCENT}`,
    required: true,
    maxlength: 9,
  },
  {
    kind: 'text',
    name: 'price_tolerance_percent',
    label: 'Price tolerance (%)',
    hint: `How far a bill’s unit price may be above the order’s, in percent, before the bill is a matching exception that accounts payable must approve. ${PERCENT}`,
    required: true,
    maxlength: 9,
  },
  {
    kind: 'select',
    name: 'match_mode',
    label: 'Matching',
    hint: 'What a bill is checked against when it is submitted. Under three-way, billing more than was received is a matching exception, and a receipt cannot be voided or returned below what was billed.',
    options: [
      { value: 'three_way', label: 'Three-way: the order and what was received' },
      { value: 'two_way', label: 'Two-way: the order only' },
    ],
    required: true,
  },
  {
    kind: 'text',
    name: 'receipt_required_over',
    label: 'Receipt needed above (amount)',
    hint: 'An expense report line above this amount, in the report’s own currency, needs a receipt attached before the report can be submitted. An amount with up to 2 decimals, e.g. 25.00.',
    required: true,
    maxlength: 19,
  },
]
const NAMES = FIELDS.map((f) => f.name)
const INTRO =
  'How strictly receipts, orders and bills are held to what was ordered and approved, and when an expense needs a receipt. Each applies to every receipt, order, bill and expense report checked after you save.'
/** What the schema's generic sentence for the amount's pattern means on this form. */
const AMOUNT = 'must be an amount like 25.00 (digits, up to 2 decimals, no thousands separators)'

const check = bodyChecker(SettingsInput)

/** The API body the form stands for: every field as typed (trimmed), for the schema to judge. */
const bodyOf = (values: Values) => Object.fromEntries(NAMES.map((name) => [name, (values[name] ?? '').trim()]))

/** The schema's field errors, with the amount's said the way this form asks for it. */
function errorsOf(errors: FieldErrors) {
  const out = errorsFor(errors, NAMES)
  const amount = out.receipt_required_over
  return amount === undefined
    ? out
    : { ...out, receipt_required_over: amount.map((m) => (m.startsWith('is not written') ? AMOUNT : m)) }
}

export function procurementSettingsPages(app: ConsoleApp, deps: ConsoleDeps, path: string): void {
  const { db } = deps

  const view = (session: ConsoleSession, state: FormState, problem?: string, flash?: string) =>
    procurementSettingsView(
      { intro: INTRO, form: { action: path, fields: FIELDS, state, submit: 'Save settings', problem }, flash },
      session,
    )

  app.get(
    '/settings/setup/procurement-settings',
    { schema: { hide: true, querystring: Done } },
    async (request, reply) => {
      const settings = await getSettings(db, request.session.actor)
      const flash = request.query.done === 'saved' ? 'Saved.' : undefined
      return sendPage(reply, view(request.session, { values: { ...settings }, errors: {} }, undefined, flash))
    },
  )

  app.post(
    '/settings/setup/procurement-settings',
    { schema: { hide: true, body: FormBody } },
    async (request, reply) => {
      const values = valuesOf(request.body, NAMES)
      const checked = check(bodyOf(values))
      const result = checked.ok
        ? await attempt(values, NAMES, () => putSettings(db, request.session.actor, checked.value))
        : {
            ok: false as const,
            form: { values, errors: errorsOf(checked.errors) },
            message: 'Check the fields marked.',
          }
      if (result.ok) return reply.redirect(`${path}?done=saved`, 303)
      return sendPage(reply, view(request.session, result.form, result.message), 400)
    },
  )
}
