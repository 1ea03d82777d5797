/** /api/v3/accounts/ — general-ledger codes. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { collectionRoutes, itemRoute } from '../http/item-routes.ts'
import { Account, AccountInput, AccountListQuery, IdParams } from './schema.ts'
import * as service from './service.ts'

export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['accounts']
  collectionRoutes(app, '/v3/accounts/', {
    tags,
    item: Account,
    query: AccountListQuery,
    params: IdParams,
    body: AccountInput,
    list: {
      summary: 'List accounts (general-ledger codes)',
      run: ({ actor, db, query }) => service.listAccounts(db, actor, query),
    },
    create: {
      summary: 'Create an account (superuser or nav_setting)',
      operationId: 'createAccount',
      run: ({ actor, db, body }) => service.createAccount(db, actor, body),
    },
    get: {
      summary: 'Get an account',
      operationId: 'getAccount',
      run: ({ actor, db, params }) => service.getAccount(db, actor, params.id),
    },
  })
  itemRoute(app, 'PUT', '/v3/accounts/:id/', {
    summary: 'Replace an account (superuser or nav_setting)',
    operationId: 'replaceAccount',
    tags,
    params: IdParams,
    body: AccountInput,
    item: Account,
    run: ({ db, actor, params, body }) => service.replaceAccount(db, actor, params.id, body),
  })
}
