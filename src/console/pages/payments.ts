/**
 * Payments in the console (views/payments.ts): the Payments page (approved bills and payment requests due, by
 * vendor; select → a run), a run's page (submit, cancel, the bank file, confirm) and a vendor's bank details
 * (change, verify) — all through the payment services, so the API's rules and refusals apply as they are. The
 * payment requests' own pages are pages/payment-requests.ts.
 */
import { Type } from 'typebox'
import {
  getVendorAccount,
  holdsPayables,
  putVendorAccount,
  vendorAccountsOf,
  verifyVendorAccount,
} from '../../bank-accounts/vendor.service.ts'
import { listCompanyAccounts } from '../../bank-accounts/company.service.ts'
import { listBills } from '../../bills/service.ts'
import { listPaymentRequests } from '../../payment-requests/service.ts'
import { subtractDecimal, sumDecimals } from '../../core/decimal.ts'
import { forbidden, Problem } from '../../core/problem.ts'
import { runFile } from '../../payment-runs/file.service.ts'
import { cancelRun, confirmRun, submitRun } from '../../payment-runs/lifecycle.service.ts'
import { createRun, getRun, listRuns } from '../../payment-runs/service.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import { getVendor } from '../../vendors/service.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { bankAccountView, paymentRunView, paymentsView } from '../views/payments.ts'
import { Done, flashOf, FormBody, Id } from './forms.ts'
import { paymentRequestPages } from './payment-requests.ts'
import { deciderOf } from './request-shared.ts'

const flash = flashOf({
  created: 'The payment run is made as a draft. Check it, then submit it for approval.',
  submit: 'The payment run is submitted: approved at once, or sent to its approvers.',
  cancel: 'The payment run is cancelled; its bills are free to pay again.',
  confirm: 'The payment run is confirmed: its bills and payment requests are marked paid.',
  saved: 'The bank details are saved and now wait for someone else to verify them.',
  verified: 'The bank details are verified: runs can pay this vendor.',
})
const Statuses = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) })
const isRefusal = (error: unknown): error is Problem =>
  error instanceof Problem && [400, 403, 404, 409].includes(error.status)

export function paymentPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps
  paymentRequestPages(app, deps)

  async function payments(session: ConsoleSession, notes: { flash?: string | undefined; problem?: string }) {
    const { actor } = session
    if (!(await holdsPayables(db, actor))) throw forbidden('The Payments page is for people with accounts payable.')
    const [bills, requests, bankAccounts, runs] = await Promise.all([
      listBills(db, actor, { page: 1, page_size: 100, status: 'approved', order_by: 'id' }),
      listPaymentRequests(db, actor, { page: 1, page_size: 100, status: 'approved', order_by: 'id' }),
      listCompanyAccounts(db, actor, { page: 1, page_size: 100 }),
      listRuns(db, actor, { page: 1, page_size: 20, order_by: '-created_at' }),
    ])
    const open = bills.rows
      .map((b) => ({ ...b, open: subtractDecimal(b.total, b.amount_paid) }))
      .filter((b) => b.open !== '0')
      .map((b) => ({ ...b, open: sumDecimals([b.open]) }))
    const openRequests = requests.rows
      .map((p) => ({ ...p, open: subtractDecimal(p.amount, p.amount_paid) }))
      .filter((p) => p.open !== '0')
      .map((p) => ({ ...p, open: sumDecimals([p.open]) }))
    const accounts = await vendorAccountsOf(db, actor.tenantId, [
      ...open.map((b) => b.vendor.id),
      ...openRequests.map((p) => p.vendor.id),
    ])
    return paymentsView(
      {
        bills: open,
        requests: openRequests,
        accounts: new Map(
          [...accounts].map(([id, a]) => [
            id,
            { status: a.status, iban: a.iban, account_number: a.account_number } as never,
          ]),
        ),
        bankAccounts: bankAccounts.rows,
        runs: runs.rows,
        today: new Date().toISOString().slice(0, 10),
        ...notes,
      },
      session,
    )
  }

  app.get('/payments', { schema: { hide: true, querystring: Statuses } }, async (request, reply) =>
    sendPage(reply, await payments(request.session, { flash: flash(request.query.done) })),
  )

  app.post('/payments/runs', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const body = request.body
    const items = Object.keys(body)
      .map((k) => /^(bill|payment_request)_(\d{1,10})$/.exec(k))
      .filter((m) => m !== null)
      .map(([, type, id]) => ({ document: { type: type as 'bill' | 'payment_request', id: Number(id) } }))
    try {
      if (items.length === 0)
        throw new Problem(400, 'Bad Request', 'Select at least one bill or payment request to pay, then make the run.')
      const run = await createRun(db, request.session.actor, {
        bank_account: Number(body.bank_account ?? 0) || 0,
        execution_date: body.execution_date ?? '',
        items,
      })
      return reply.redirect(`/console/payment-runs/${run.id}?done=created`, 303)
    } catch (error) {
      if (!isRefusal(error) || error.status === 404) throw error
      const detail =
        error.extra.errors === undefined
          ? error.detail
          : `${error.detail} ${Object.entries(error.extra.errors as Record<string, string[]>)
              .map(([f, m]) => `${f.replace('_', ' ')} ${m.join('; ')}.`)
              .join(' ')}`
      return sendPage(reply, await payments(request.session, { problem: detail }), error.status)
    }
  })

  async function runPage(session: ConsoleSession, id: number, notes: { flash?: string | undefined; problem?: string }) {
    const run = await getRun(db, session.actor, id)
    const delegators = await myDelegators(db, session.actor)
    const decidable = new Set(
      run.approvals.filter((a) => deciderOf(session.actor, delegators, a) !== undefined).map((a) => a.id),
    )
    return paymentRunView({ run, decidable, ...notes }, session)
  }

  app.get('/payment-runs/:id', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) =>
    sendPage(reply, await runPage(request.session, request.params.id, { flash: flash(request.query.done) })),
  )

  app.get('/payment-runs/:id/file', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const { number, xml } = await runFile(db, request.session.actor, request.params.id)
    return reply
      .type('application/xml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${number}.xml"`)
      .send(xml)
  })

  const actions = {
    submit: (session: ConsoleSession, id: number) =>
      submitRun(db, session.actor, id, mailBaseOf(deps, session.actor.domain)),
    cancel: (session: ConsoleSession, id: number) => cancelRun(db, session.actor, id),
    confirm: (session: ConsoleSession, id: number) => confirmRun(db, session.actor, id, {}),
  }
  for (const [action, run] of Object.entries(actions))
    app.post(`/payment-runs/:id/${action}`, { schema: { hide: true, params: Id } }, async (request, reply) => {
      try {
        await run(request.session, request.params.id)
      } catch (error) {
        if (!isRefusal(error) || error.status === 404) throw error
        return sendPage(
          reply,
          await runPage(request.session, request.params.id, { problem: error.detail }),
          error.status,
        )
      }
      return reply.redirect(`/console/payment-runs/${request.params.id}?done=${action}`, 303)
    })

  async function bankPage(
    session: ConsoleSession,
    vendorId: number,
    notes: {
      flash?: string | undefined
      problem?: string
      values?: Record<string, string>
      errors?: Record<string, string[]>
    },
  ) {
    const vendor = await getVendor(db, deps.lookups, session.actor, vendorId)
    const account = await getVendorAccount(db, session.actor, vendorId).catch((error: unknown) => {
      if (error instanceof Problem && error.status === 404) return undefined
      throw error
    })
    const values = notes.values ?? {
      account_holder: account?.account_holder ?? vendor.name,
      iban: account?.masked === false ? (account.iban ?? '') : '',
      bic: account?.bic ?? '',
      account_number: account?.masked === false ? (account.account_number ?? '') : '',
      routing_number: account?.routing_number ?? '',
      country: account?.country ?? '',
    }
    return bankAccountView(
      {
        vendor: { id: vendor.id, name: vendor.name },
        account,
        payable: await holdsPayables(db, session.actor),
        values,
        ...(notes.errors === undefined ? {} : { errors: notes.errors }),
        ...(notes.flash === undefined ? {} : { flash: notes.flash }),
        ...(notes.problem === undefined ? {} : { problem: notes.problem }),
      },
      session,
    )
  }

  app.get(
    '/vendors/:id/bank-account',
    { schema: { hide: true, params: Id, querystring: Done } },
    async (request, reply) =>
      sendPage(reply, await bankPage(request.session, request.params.id, { flash: flash(request.query.done) })),
  )

  app.post(
    '/vendors/:id/bank-account',
    { schema: { hide: true, params: Id, body: FormBody } },
    async (request, reply) => {
      const values = Object.fromEntries(
        ['account_holder', 'iban', 'bic', 'account_number', 'routing_number', 'country'].map((k) => [
          k,
          (request.body[k] ?? '').trim(),
        ]),
      )
      try {
        await putVendorAccount(db, request.session.actor, request.params.id, {
          account_holder: values.account_holder ?? '',
          iban: values.iban || null,
          bic: values.bic || null,
          account_number: values.account_number || null,
          routing_number: values.routing_number || null,
          ...(values.country ? { country: values.country } : {}),
        })
      } catch (error) {
        if (!isRefusal(error) || error.status === 404) throw error
        const errors = (error.extra.errors as Record<string, string[]> | undefined) ?? {}
        return sendPage(
          reply,
          await bankPage(request.session, request.params.id, {
            problem: `${error.detail} Correct the fields marked below.`,
            values,
            errors,
          }),
          error.status,
        )
      }
      return reply.redirect(`/console/vendors/${request.params.id}/bank-account?done=saved`, 303)
    },
  )

  app.post('/vendors/:id/bank-account/verify', { schema: { hide: true, params: Id } }, async (request, reply) => {
    try {
      await verifyVendorAccount(db, request.session.actor, request.params.id)
    } catch (error) {
      if (!isRefusal(error) || error.status === 404) throw error
      return sendPage(
        reply,
        await bankPage(request.session, request.params.id, { problem: error.detail }),
        error.status,
      )
    }
    return reply.redirect(`/console/vendors/${request.params.id}/bank-account?done=verified`, 303)
  })
}
