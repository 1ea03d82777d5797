/**
 * POST /console/budgets/check: the budgets a request being typed would count against, through the very check
 * the API answers at `POST /api/v3/budgets/check/` (budgets/check.service.ts `checkDraft`, which writes nothing),
 * from the request editor's own fields and with the session's actor (the browser has a cookie, not a token).
 *
 * - The console's script posts the form (with its CSRF token) as the person types and asks for JSON: the panel's
 *   sentences (views/budget-check.ts), which it writes into the form's live region as text.
 * - Without JavaScript the form's "Check budgets" button posts here: the form is shown again with the same
 *   values and the panel filled (`?request=<id>`: the edit of that draft), and nothing is saved.
 *
 * What cannot be checked (a location that is not on offer, a quantity that is not a number, a location where the
 * person may not request) is a 4xx with sentences saying what to fix, never a 5xx.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { Actor } from '../../access/actor.ts'
import { checkDraft } from '../../budgets/check.service.ts'
import { currencyFor } from '../../budgets/repository.ts'
import { CheckInput } from '../../budgets/schema.ts'
import { Problem } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { MAX_LINES } from '../../requests/schema.ts'
import { getRequest } from '../../requests/service.ts'
import { baseCurrency } from '../../reports/currency.repository.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import type { BudgetCheckState } from '../views/budget-check.ts'
import { requestFormView } from '../views/request-form.ts'
import { checkedState, draftOf, fixState } from './budget-sentences.ts'
import { choices, readForm, RequestForm, requestTarget } from './request-form.ts'
import { vendorNamesOf } from './request-shared.ts'

const CheckQuery = Type.Object({ request: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })) })
/** What the script is answered (views/budget-check.ts `BudgetCheckState`), whatever the status. */
const CheckState = Type.Object({
  outcome: Type.Union(['idle', 'ok', 'over', 'error'].map((o) => Type.Literal(o))),
  summary: Type.String(),
  items: Type.Array(
    Type.Object({
      tone: Type.Union(['within', 'warn', 'block', 'approve', 'fix'].map((t) => Type.Literal(t))),
      text: Type.String(),
    }),
  ),
})
const checkBody = bodyChecker(CheckInput)

/** Why the check service refused, as what to fix (its own detail names no field a person sees). */
function refusal(error: Problem): BudgetCheckState {
  if (error.status === 403)
    return fixState([
      'You may not make requests at this location: the Request permission is needed there. Choose another location.',
    ])
  const fields = Object.keys([error.extra.errors ?? []].flat()[0] ?? {})
  const say: Record<string, string> = {
    location: 'Choose a location from the list.',
    department: 'Choose a department of the chosen location from the list, or none.',
    currency: 'Choose a currency from the list, or leave it to the location’s.',
  }
  const known = fields.flatMap((f) => (say[f] === undefined ? [] : [say[f]]))
  return fixState(known.length > 0 ? known : ['Check the location, department, currency and lines, then try again.'])
}

/** The check of the form's fields: the panel's sentences and the status they go with. */
async function check(
  deps: ConsoleDeps,
  actor: Actor,
  field: (name: string) => string,
  rows: number,
  removable: boolean,
): Promise<{ status: number; state: BudgetCheckState }> {
  const draft = draftOf(field, rows, removable)
  if ('idle' in draft) return { status: 200, state: { outcome: 'idle', summary: draft.idle, items: [] } }
  if ('fix' in draft) return { status: 400, state: fixState(draft.fix) }
  const checked = checkBody(draft.body)
  if (!checked.ok) return { status: 400, state: fixState(['Check the location, currency and lines, then try again.']) }
  try {
    const result = await checkDraft(deps.db, actor, checked.value)
    const base = await baseCurrency(deps.db, actor.tenantId)
    const currency = await currencyFor(deps.db, actor.tenantId, checked.value.location, checked.value.currency)
    const foreign = currency !== undefined && currency.name !== base
    return {
      status: 200,
      state: checkedState(result, base, foreign ? { currency: currency.name, rate: currency.rate } : undefined),
    }
  } catch (error) {
    if (!(error instanceof Problem) || error.status >= 500) throw error
    return { status: error.status, state: refusal(error) }
  }
}

const wantsJson = (request: FastifyRequest) => /\bapplication\/json\b/.test(request.headers.accept ?? '')

/** The script's answer: the panel's sentences as JSON (it writes them as text), never stored by a cache. */
const sendState = (reply: FastifyReply, status: number, state: BudgetCheckState) =>
  reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(state)

export function budgetCheckPages(app: ConsoleApp, deps: ConsoleDeps): void {
  app.post(
    '/budgets/check',
    {
      attachValidation: true,
      schema: {
        hide: true,
        body: RequestForm,
        querystring: CheckQuery,
        response: { 200: CheckState, '4xx': CheckState },
      },
    },
    async (request, reply) => {
      const { session } = request
      if (request.validationError !== undefined) {
        if (!wantsJson(request)) throw request.validationError
        const fix = 'The form holds more than a request may (too many lines, or a field too long). Shorten it.'
        return sendState(reply, 400, fixState([fix]))
      }
      const body = request.body
      if (wantsJson(request)) {
        // As the script posts it: every row, those ticked for removal among them.
        const rows = Math.min(MAX_LINES, Math.max(1, Number.parseInt(body.rows ?? '', 10) || 1))
        const { status, state } = await check(deps, session.actor, (n) => (body[n] ?? '').trim(), rows, true)
        return sendState(reply, status, state)
      }
      const form = readForm(body)
      const { status, state } = await check(deps, session.actor, (n) => form.values[n] ?? '', form.rows, false)
      const id = request.query.request
      const keep =
        id === undefined
          ? undefined
          : await getRequest(deps.db, session.actor, id).then(async (r) => ({
              location: r.location.id,
              vendors: await vendorNamesOf(deps, session.actor, r),
            }))
      const page = requestFormView(
        { values: form.values, errors: {} },
        Math.max(1, form.rows),
        await choices(deps, session, keep),
        requestTarget(id),
        session,
        undefined,
        state,
      )
      return sendPage(reply, page, status)
    },
  )
}
