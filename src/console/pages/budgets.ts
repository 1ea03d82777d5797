/**
 * Budgets in the console: the list of the budgets the person may read (the budget service's own readers: a
 * superuser, Manage or Report at the budget's location, its owner), one budget with its ledger entries, and the
 * form that creates or edits one (the API's body, checked by its schema and written by its service).
 * Someone who may read none (no Manage or Report anywhere, owning none) gets 403; a budget they may not read, 404.
 */
import { Type } from 'typebox'
import { listAccounts } from '../../accounts/service.ts'
import type { Actor } from '../../access/actor.ts'
import { BudgetInput, type Budget } from '../../budgets/schema.ts'
import {
  budgetWriter,
  createBudget,
  deleteBudget,
  getBudget,
  listBudgets,
  listEntries,
  replaceBudget,
} from '../../budgets/service.ts'
import { budgetNames } from '../../budgets/view.service.ts'
import { forbidden } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { baseCurrency } from '../../reports/currency.repository.ts'
import { listUsers } from '../../users/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { BUDGET_LABELS, budgetFormView, budgetsView, budgetView, type BudgetChoices } from '../views/budgets.ts'
import type { FormState, Values } from '../views/forms.ts'
import { menuKeys, type MenuKey } from '../views/layout.ts'
import {
  allRows,
  attempt,
  Done,
  errorsFor,
  flashOf,
  FormBody,
  Id,
  idOrText,
  ListQuery,
  PAGE_SIZE,
  valuesOf,
} from './forms.ts'
import { placeChoices } from './request-shared.ts'

const FIELDS = Object.keys(BUDGET_LABELS)
const flash = flashOf({
  created: 'The budget is created: documents it covers are checked against it from now on.',
  saved: 'Your changes are saved. Its figures are read from the ledger as before: no entry changed.',
  deleted: 'The budget is deleted. Its ledger entries stay: they belong to the documents.',
})
const check = bodyChecker(BudgetInput)

/** The API body a budget form stands for: ids as numbers (blank: null, i.e. every), text trimmed. */
export function budgetBodyOf(values: Values): Record<string, unknown> {
  const text = (name: string) => (values[name] ?? '').trim()
  const ref = (name: string) => (text(name) === '' ? null : idOrText(text(name)))
  return {
    name: text('name'),
    location: ref('location'),
    department: ref('department'),
    account: ref('account'),
    period_start: text('period_start'),
    period_end: text('period_end'),
    amount: text('amount'),
    action: text('action'),
    owner: ref('owner'),
    active: values.active === 'on',
  }
}

/** A budget as its edit form shows it. */
const valuesOfBudget = (b: Budget): Values => {
  const id = (v: number | null) => (v === null ? '' : String(v))
  return {
    name: b.name,
    location: id(b.location),
    department: id(b.department),
    account: id(b.account),
    period_start: b.period_start,
    period_end: b.period_end,
    amount: b.amount,
    action: b.action,
    owner: id(b.owner),
    active: b.active ? 'on' : '',
  }
}

/** Who may open the Budgets pages: as the menu shows the entry (views/layout.ts). */
export const BUDGET_READERS: readonly MenuKey[] = ['superuser', 'nav_manage', 'nav_report', 'budget_owner']

function requireReader(actor: Actor): void {
  const held = menuKeys.get(actor) ?? actor.permissions
  if (!BUDGET_READERS.some((key) => held.has(key)))
    throw forbidden(
      'Budgets are for people with the Manage or Report permission at a location, and for budget owners; ask an administrator.',
    )
}

const EntriesQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  done: Done.properties.done,
})

export function budgetPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  app.get('/budgets', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { actor } = request.session
    requireReader(actor)
    const { search, page } = request.query
    const result = await listBudgets(db, actor, {
      page: page ?? 1,
      page_size: PAGE_SIZE,
      order_by: 'name',
      ...(search === undefined ? {} : { search }),
    })
    const [names, writes] = await Promise.all([budgetNames(db, actor.tenantId, result.rows), budgetWriter(db, actor)])
    const creates = writes(null) || (menuKeys.get(actor)?.has('nav_manage') ?? false) // as requireCreator
    return sendPage(reply, budgetsView(result, search, names, request.session, flash(request.query.done), creates))
  })

  /** The form's choices: the locations where the person may write budgets, their departments, accounts, people. */
  const choices = async (session: ConsoleSession, keep: number | null): Promise<BudgetChoices> => {
    const { actor } = session
    const writes = await budgetWriter(db, actor)
    const places = await placeChoices(deps, actor, (id) => writes(id) || id === keep)
    const accounts = await allRows((q) => listAccounts(db, actor, { ...q, order_by: 'code', active: true }))
    const people = await allRows((q) => listUsers(db, actor, { ...q, order_by: 'lastName', is_active: true }))
    return {
      location: places.location,
      everyLocation: writes(null),
      department: places.department,
      account: accounts.map((a) => ({ value: String(a.id), label: `${a.code} ${a.name}`.trim() })),
      owner: people.map((p) => ({ value: String(p.id), label: `${p.firstName} ${p.lastName}`.trim() || p.email })),
    }
  }
  const showForm = async (
    session: ConsoleSession,
    form: FormState,
    target: { action: string; title: string; cancel: string },
    keep: number | null = null,
  ) =>
    budgetFormView(form, await choices(session, keep), target, session, await baseCurrency(db, session.actor.tenantId))

  const newTarget = { action: '/console/budgets/new', title: 'New budget', cancel: '/console/budgets' }
  const year = () => new Date().getUTCFullYear()
  /** The form is for writers: Manage at some location (or superuser); the service judges the location chosen. */
  const requireCreator = async (actor: Actor) => {
    if (!((await budgetWriter(db, actor))(null) || (menuKeys.get(actor)?.has('nav_manage') ?? false)))
      throw forbidden(
        'Creating a budget needs the Manage permission at a location (or superuser); ask an administrator.',
      )
  }
  app.get('/budgets/new', { schema: { hide: true } }, async (request, reply) => {
    await requireCreator(request.session.actor)
    const values = { period_start: `${year()}-01-01`, period_end: `${year()}-12-31`, action: 'warn', active: 'on' }
    return sendPage(reply, await showForm(request.session, { values, errors: {} }, newTarget))
  })

  app.post('/budgets/new', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const values = valuesOf(request.body, FIELDS)
    const checked = check(budgetBodyOf(values))
    const result = checked.ok
      ? await attempt(values, FIELDS, () => createBudget(db, request.session.actor, checked.value))
      : { ok: false as const, form: { values, errors: errorsFor(checked.errors, FIELDS) } }
    if (!result.ok) return sendPage(reply, await showForm(request.session, result.form, newTarget), 400)
    return reply.redirect(`/console/budgets/${result.value.id}?done=created`, 303)
  })

  app.get('/budgets/:id', { schema: { hide: true, params: Id, querystring: EntriesQuery } }, async (request, reply) => {
    const { actor } = request.session
    const budget = await getBudget(db, actor, request.params.id)
    const entries = await listEntries(db, actor, budget.id, { page: request.query.page ?? 1, page_size: PAGE_SIZE })
    const [names, writes] = await Promise.all([budgetNames(db, actor.tenantId, [budget]), budgetWriter(db, actor)])
    const view = budgetView(budget, entries, names, request.session, flash(request.query.done), writes(budget.location))
    return sendPage(reply, view)
  })

  const editTarget = (b: Budget) => ({
    action: `/console/budgets/${b.id}/edit`,
    title: `Edit ${b.name}`,
    cancel: `/console/budgets/${b.id}`,
  })
  app.get('/budgets/:id/edit', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const budget = await getBudget(db, request.session.actor, request.params.id)
    if (!(await budgetWriter(db, request.session.actor))(budget.location))
      throw forbidden('Editing this budget needs the Manage permission at its location (or superuser).')
    const form = { values: valuesOfBudget(budget), errors: {} }
    return sendPage(reply, await showForm(request.session, form, editTarget(budget), budget.location))
  })

  app.post('/budgets/:id/edit', { schema: { hide: true, params: Id, body: FormBody } }, async (request, reply) => {
    const { actor } = request.session
    const current = await getBudget(db, actor, request.params.id)
    const values = valuesOf(request.body, FIELDS)
    const checked = check(budgetBodyOf(values))
    const result = checked.ok
      ? await attempt(values, FIELDS, () => replaceBudget(db, actor, current.id, checked.value))
      : { ok: false as const, form: { values, errors: errorsFor(checked.errors, FIELDS) } }
    if (!result.ok)
      return sendPage(reply, await showForm(request.session, result.form, editTarget(current), current.location), 400)
    return reply.redirect(`/console/budgets/${current.id}?done=saved`, 303)
  })

  app.post('/budgets/:id/delete', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await deleteBudget(db, request.session.actor, request.params.id)
    return reply.redirect('/console/budgets?done=deleted', 303)
  })
}
