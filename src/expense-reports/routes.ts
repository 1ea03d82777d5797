/** /api/v3/expense-reports/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { collectionRoutes, itemRoute } from '../http/item-routes.ts'
import { cancelReport, reimburseReport, submitReport } from './lifecycle.service.ts'
import { ExpenseListQuery, ExpenseParams, ExpenseReport, ExpenseReportInput, ReimburseInput } from './schema.ts'
import * as service from './service.ts'

export const expenseReportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['expense-reports']
  const item = ExpenseReport
  const params = ExpenseParams
  collectionRoutes(app, '/v3/expense-reports/', {
    tags,
    item,
    query: ExpenseListQuery,
    params,
    body: ExpenseReportInput,
    list: {
      summary: 'List the expense reports you may see (yours, those you approve, accounts_payable at their location)',
      run: ({ actor, db, query }) => service.listReports(db, actor, query),
    },
    create: {
      summary: 'Make a draft expense report of your own (nav_request at its location)',
      operationId: 'createExpenseReport',
      run: ({ db, actor, body }) => service.createReport(db, actor, body),
    },
    get: {
      summary: 'Get an expense report',
      operationId: 'getExpenseReport',
      run: ({ db, actor, params }) => service.getReport(db, actor, params.id),
    },
  })
  itemRoute(app, 'PUT', '/v3/expense-reports/:id/', {
    summary: 'Replace a draft or rejected expense report (its employee)',
    operationId: 'replaceExpenseReport',
    tags,
    params,
    body: ExpenseReportInput,
    item,
    run: ({ db, actor, params, body }) => service.putReport(db, actor, params.id, body),
  })
  itemRoute(app, 'POST', '/v3/expense-reports/:id/submit/', {
    summary: 'Submit a draft or rejected report: rates locked, receipts checked, approved through the expense rules',
    operationId: 'submitExpenseReport',
    tags,
    params,
    item,
    run: ({ db, actor, params, mailBase }) => submitReport(db, actor, params.id, mailBase),
  })
  itemRoute(app, 'POST', '/v3/expense-reports/:id/cancel/', {
    summary: 'Cancel a draft or pending expense report (its employee)',
    operationId: 'cancelExpenseReport',
    tags,
    params,
    item,
    run: ({ db, actor, params }) => cancelReport(db, actor, params.id),
  })
  itemRoute(app, 'POST', '/v3/expense-reports/:id/reimburse/', {
    summary: 'Mark an approved expense report reimbursed (accounts_payable at its location)',
    operationId: 'reimburseExpenseReport',
    tags,
    params,
    body: ReimburseInput,
    item,
    run: ({ db, actor, params, body }) => reimburseReport(db, actor, params.id, body ?? {}),
  })
}
