/** /api/v3/budgets/ — budgets with their figures, their ledger entries, and the check while drafting. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { collectionRoutes, deleteRoute, itemRoute } from '../http/item-routes.ts'
import { ListEnvelope, sendPage } from '../http/list.ts'
import { checkDraft } from './check.service.ts'
import {
  Budget,
  BudgetInput,
  BudgetListQuery,
  CheckInput,
  CheckResult,
  EntryListQuery,
  IdParams,
  LedgerEntry,
} from './schema.ts'
import * as service from './service.ts'

export const budgetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['budgets']
  itemRoute(app, 'POST', '/v3/budgets/check/', {
    summary: 'What a document with these lines would do to the budgets it matches (writes nothing; nav_request)',
    operationId: 'checkBudgets',
    tags,
    body: CheckInput,
    item: CheckResult,
    run: ({ db, actor, body }) => checkDraft(db, actor, body),
  })
  collectionRoutes(app, '/v3/budgets/', {
    tags,
    item: Budget,
    query: BudgetListQuery,
    params: IdParams,
    body: BudgetInput,
    list: {
      summary: 'List the budgets you may read, with their figures',
      run: ({ actor, db, query }) => service.listBudgets(db, actor, query),
    },
    create: {
      summary: 'Create a budget (superuser, or nav_manage at its location)',
      operationId: 'createBudget',
      run: ({ actor, db, body }) => service.createBudget(db, actor, body),
    },
    get: {
      summary: 'Get a budget with its figures',
      operationId: 'getBudget',
      run: ({ actor, db, params }) => service.getBudget(db, actor, params.id),
    },
  })
  itemRoute(app, 'PUT', '/v3/budgets/:id/', {
    summary: 'Replace a budget (superuser, or nav_manage at its location); its entries stay as they are',
    operationId: 'replaceBudget',
    tags,
    params: IdParams,
    body: BudgetInput,
    item: Budget,
    run: ({ db, actor, params, body }) => service.replaceBudget(db, actor, params.id, body),
  })
  deleteRoute(app, '/v3/budgets/:id/', {
    summary: 'Delete a budget (superuser, or nav_manage at its location); the ledger keeps its entries',
    operationId: 'deleteBudget',
    tags,
    params: IdParams,
    run: ({ db, actor, params }) => service.deleteBudget(db, actor, params.id),
  })
  app.get(
    '/v3/budgets/:id/entries/',
    {
      schema: {
        summary: 'The ledger entries a budget matches, newest first',
        tags,
        params: IdParams,
        querystring: EntryListQuery,
        response: { 200: ListEnvelope(LedgerEntry) },
        produces: ['application/json', 'text/csv'],
      },
    },
    async (request, reply) => {
      const page = await service.listEntries(request.db, request.actor, request.params.id, request.query)
      return sendPage(request, reply, page, LedgerEntry)
    },
  )
}
