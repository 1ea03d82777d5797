/**
 * "My expenses" and travel requests in the console: lists, the new-report and new-trip forms, one report (its
 * lines, each receipt shown inline) or trip, and their actions — submit, cancel, reimburse — all through the
 * services, so the API's rules and refusals apply as they are. Who sees what is the API's rule (others 404).
 * Receipts are read through `/console/expenses/{id}/receipts/{attachment}`: only an attachment that is a
 * line's receipt on a report the user sees; images inline, anything else as a download.
 */
import { Type } from 'typebox'
import type { Actor } from '../../access/actor.ts'
import { actorLocationAccess, holdsAnyAt } from '../../access/location-permissions.ts'
import { attachmentContent, getAttachment } from '../../attachments/service.ts'
import { notFound, Problem, validationFailed } from '../../core/problem.ts'
import { cancelReport, reimburseReport, submitReport } from '../../expense-reports/lifecycle.service.ts'
import { ExpenseReportInput, type ExpenseReport } from '../../expense-reports/schema.ts'
import { createReport, getReport, listReports } from '../../expense-reports/service.ts'
import { cancelTravel, createTravel, getTravel, listTravel, submitTravel } from '../../travel-requests/service.ts'
import { TravelRequestInput, type TravelRequest } from '../../travel-requests/schema.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { FormState } from '../views/forms.ts'
import {
  EXPENSE_LABELS,
  expenseFormView,
  expenseSummary,
  expensesView,
  expenseView,
  FORM_LINES,
  TRAVEL_LABELS,
  travelFormView,
  travelListView,
  travelSummary,
  travelView,
} from '../views/expenses.ts'
import { ATTACHMENT_FLASH } from '../views/attachments.ts'
import { documentBoxesFor } from './attachments.ts'
import { receiptsEditable } from './expense-receipts.ts'
import { attempt, Done, flashOf, FormBody, Id, PAGE_SIZE } from './forms.ts'
import { deciderOf, placeChoices } from './request-shared.ts'

const flash = flashOf({
  ...ATTACHMENT_FLASH,
  created: 'Saved as a draft. Add a receipt to each line, then submit it.',
  submit: 'Submitted: it is approved as the rules say.',
  cancel: 'Cancelled.',
  reimburse: 'Marked reimbursed.',
})
const ListPage = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  done: Type.Optional(Type.String({ maxLength: 20 })),
})
const Receipt = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  attachment: Type.Integer({ minimum: 1, maximum: 2147483647 }),
})
const ReimburseForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  payment_reference: Type.Optional(Type.String({ maxLength: 200 })),
})

const checkExpense = bodyChecker(ExpenseReportInput)
const checkTravel = bodyChecker(TravelRequestInput)
const filled = (v: string | undefined) => v !== undefined && v.trim() !== ''

/** The new-report form's fields as the API's body (blank lines left out). */
function expenseBody(values: Readonly<Record<string, string>>, rowOf: number[]) {
  const lines = []
  for (let i = 0; i < FORM_LINES; i++) {
    const at = (k: string) => values[`lines.${i}.${k}`]
    if (![at('date'), at('merchant'), at('description'), at('amount')].some(filled)) continue
    rowOf.push(i)
    lines.push({
      date: at('date') ?? '',
      merchant: at('merchant') ?? '',
      description: at('description') ?? '',
      amount: (at('amount') ?? '').trim(),
      ...(filled(at('currency')) ? { currency: at('currency')! } : {}),
    })
  }
  return {
    location: Number(values.location),
    ...(filled(values.currency) ? { currency: values.currency! } : {}),
    title: values.title ?? '',
    lines,
  }
}

function travelBody(values: Readonly<Record<string, string>>) {
  const estimates = []
  for (let i = 0; i < 5; i++)
    if (filled(values[`estimates.${i}.category`]) || filled(values[`estimates.${i}.amount`]))
      estimates.push({
        category: values[`estimates.${i}.category`] as 'other',
        amount: (values[`estimates.${i}.amount`] ?? '').trim(),
      })
  return {
    location: Number(values.location),
    ...(filled(values.currency) ? { currency: values.currency! } : {}),
    purpose: values.purpose ?? '',
    destination: values.destination ?? '',
    departure_date: values.departure_date ?? '',
    return_date: values.return_date ?? '',
    estimates,
  }
}

export function expensePages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps
  const choices = async (actor: Actor) => {
    const access = await actorLocationAccess(db, actor)
    return placeChoices(deps, actor, (l) => holdsAnyAt(access, l, 'nav_request'))
  }
  const decidable = async (session: ConsoleSession, approvals: ExpenseReport['approvals']) => {
    const delegators = await myDelegators(db, session.actor)
    return new Set(approvals.filter((a) => deciderOf(session.actor, delegators, a) !== undefined).map((a) => a.id))
  }

  app.get('/expenses', { schema: { hide: true, querystring: ListPage } }, async (request, reply) => {
    const result = await listReports(db, request.session.actor, {
      page: request.query.page ?? 1,
      page_size: PAGE_SIZE,
      order_by: '-created_at',
    })
    return sendPage(reply, expensesView(result, request.session, flash(request.query.done)))
  })

  app.get('/expenses/new', { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, expenseFormView({ values: {}, errors: {} }, await choices(request.session.actor), request.session)),
  )

  app.post('/expenses', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const values = request.body
    const rowOf: number[] = []
    const body = expenseBody(values, rowOf)
    const fields = Object.keys(EXPENSE_LABELS)
    const result = await attempt(values, fields, async () => {
      if (body.lines.length === 0)
        throw validationFailed({ 'lines.0.amount': ['fill in at least one line'] }, 'Fill in at least one line.')
      const checked = checkExpense(body)
      if (!checked.ok) throw validationFailed(checked.errors, 'Some fields need another look; see each one below.')
      return createReport(db, request.session.actor, checked.value)
    })
    if (result.ok) return reply.redirect(`/console/expenses/${result.value.id}?done=created`, 303)
    const errors = Object.fromEntries(
      Object.entries(result.form.errors).map(([k, v]) => [
        k.replace(/^lines\.(\d+)/, (w, i: string) =>
          rowOf[Number(i)] === undefined ? w : `lines.${rowOf[Number(i)]}`,
        ),
        v,
      ]),
    )
    const form: FormState = { values, errors }
    return sendPage(
      reply,
      expenseFormView(form, await choices(request.session.actor), request.session, result.message),
      400,
    )
  })

  async function showReport(
    session: ConsoleSession,
    r: ExpenseReport,
    notes: { flash?: string | undefined; problem?: string },
  ) {
    const access = await actorLocationAccess(db, session.actor)
    const images = await imageReceipts(db, session.actor, r)
    return expenseView(
      r,
      {
        mine: r.employee.email === session.actor.email,
        payable: holdsAnyAt(access, r.location.id, 'accounts_payable'),
        decidable: await decidable(session, r.approvals),
        images,
        receipts: receiptsEditable(r, session.actor),
      },
      session,
      { ...notes, boxes: await documentBoxesFor(deps, session, 'expense_report', r.id) },
    )
  }

  app.get('/expenses/:id', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) => {
    const r = await getReport(db, request.session.actor, request.params.id)
    return sendPage(reply, await showReport(request.session, r, { flash: flash(request.query.done) }))
  })

  app.get('/expenses/:id/receipts/:attachment', { schema: { hide: true, params: Receipt } }, async (request, reply) => {
    const { id, attachment } = request.params
    const r = await getReport(db, request.session.actor, id)
    if (!r.lines.some((l) => l.receipt === attachment)) throw notFound('That file is not a receipt of this report.')
    const { attachment: a, open } = await attachmentContent(db, deps.config, request.session.actor, attachment)
    const image = a.content_type.startsWith('image/') && a.content_type !== 'image/svg+xml'
    return reply
      .header('content-type', a.content_type)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "sandbox; default-src 'none'")
      .header('cache-control', 'private, max-age=300')
      .header(
        'content-disposition',
        `${image ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(a.filename)}`,
      )
      .send(await open())
  })

  /** Runs an action; a refusal (400, 403, 409) is said on the document's page, a hidden document stays a 404. */
  async function act(
    path: string,
    run: () => Promise<unknown>,
    show: (problem: string) => Promise<string>,
    done: string,
    reply: { redirect(url: string, code: number): unknown },
  ) {
    try {
      await run()
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      return sendPage(reply as never, await show(error.detail), error.status)
    }
    return reply.redirect(`${path}?done=${done}`, 303)
  }

  for (const [name, run] of Object.entries({ submit: submitReport, cancel: cancelReport }))
    app.post(`/expenses/:id/${name}`, { schema: { hide: true, params: Id } }, async (request, reply) => {
      const { actor } = request.session
      const id = request.params.id
      return act(
        `/console/expenses/${id}`,
        () => run(db, actor, id, mailBaseOf(deps, actor.domain)),
        async (problem) => showReport(request.session, await getReport(db, actor, id), { problem }),
        name,
        reply,
      )
    })

  app.post(
    '/expenses/:id/reimburse',
    { schema: { hide: true, params: Id, body: ReimburseForm } },
    async (request, reply) => {
      const { actor } = request.session
      const id = request.params.id
      const reference = (request.body.payment_reference ?? '').trim()
      return act(
        `/console/expenses/${id}`,
        () => reimburseReport(db, actor, id, reference === '' ? {} : { payment_reference: reference }),
        async (problem) => showReport(request.session, await getReport(db, actor, id), { problem }),
        'reimburse',
        reply,
      )
    },
  )

  app.get('/travel', { schema: { hide: true, querystring: ListPage } }, async (request, reply) => {
    const result = await listTravel(db, request.session.actor, {
      page: request.query.page ?? 1,
      page_size: PAGE_SIZE,
      order_by: '-created_at',
    })
    return sendPage(reply, travelListView(result, request.session, flash(request.query.done)))
  })

  app.get('/travel/new', { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, travelFormView({ values: {}, errors: {} }, await choices(request.session.actor), request.session)),
  )

  app.post('/travel', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const values = request.body
    const result = await attempt(values, Object.keys(TRAVEL_LABELS), async () => {
      const checked = checkTravel(travelBody(values))
      if (!checked.ok) throw validationFailed(checked.errors, 'Some fields need another look; see each one below.')
      return createTravel(db, request.session.actor, checked.value)
    })
    if (result.ok) return reply.redirect(`/console/travel/${result.value.id}?done=created`, 303)
    return sendPage(
      reply,
      travelFormView(result.form, await choices(request.session.actor), request.session, result.message),
      400,
    )
  })

  const showTravel = async (
    session: ConsoleSession,
    t: TravelRequest,
    notes: { flash?: string | undefined; problem?: string },
  ) =>
    travelView(
      t,
      { mine: t.traveller.email === session.actor.email, decidable: await decidable(session, t.approvals) },
      session,
      { ...notes, boxes: await documentBoxesFor(deps, session, 'travel_request', t.id) },
    )

  app.get('/travel/:id', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) => {
    const t = await getTravel(db, request.session.actor, request.params.id)
    return sendPage(reply, await showTravel(request.session, t, { flash: flash(request.query.done) }))
  })

  for (const [name, run] of Object.entries({ submit: submitTravel, cancel: cancelTravel }))
    app.post(`/travel/:id/${name}`, { schema: { hide: true, params: Id } }, async (request, reply) => {
      const { actor } = request.session
      const id = request.params.id
      return act(
        `/console/travel/${id}`,
        () => run(db, actor, id, mailBaseOf(deps, actor.domain)),
        async (problem) => showTravel(request.session, await getTravel(db, actor, id), { problem }),
        name,
        reply,
      )
    })
}

/** Which of the report's receipts are images (shown inline); receipts the user cannot read are left out. */
async function imageReceipts(db: ConsoleDeps['db'], actor: Actor, r: ExpenseReport): Promise<Set<number>> {
  const images = new Set<number>()
  for (const l of r.lines)
    if (l.receipt !== null) {
      const a = await getAttachment(db, actor, l.receipt).catch(() => undefined)
      if (a !== undefined && a.content_type.startsWith('image/') && a.content_type !== 'image/svg+xml')
        images.add(l.receipt)
    }
  return images
}

/** An expense report or travel request as the approval's decision page shows it (404 when not visible). */
export async function otherDocument(
  db: ConsoleDeps['db'],
  actor: Actor,
  type: 'expense_report' | 'travel_request',
  id: number,
) {
  if (type === 'expense_report') {
    const r = await getReport(db, actor, id)
    return {
      name: `expense report ${r.number}`,
      href: `/console/expenses/${r.id}`,
      link: `Open expense report ${r.number}`,
      summary: expenseSummary(r, await imageReceipts(db, actor, r)),
    }
  }
  const t = await getTravel(db, actor, id)
  return {
    name: `travel request ${t.number}`,
    href: `/console/travel/${t.id}`,
    link: `Open travel request ${t.number}`,
    summary: travelSummary(t),
  }
}
