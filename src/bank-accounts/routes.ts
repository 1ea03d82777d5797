/** /api/v3/vendors/{id}/bank-account/ and /api/v3/bank-accounts/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { collectionRoutes, itemRoute } from '../http/item-routes.ts'
import * as company from './company.service.ts'
import {
  CompanyBankAccount,
  CompanyBankAccountInput,
  CompanyBankAccountListQuery,
  IdParams,
  VendorBankAccount,
  VendorBankAccountInput,
} from './schema.ts'
import * as vendor from './vendor.service.ts'

export const bankAccountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['bank accounts']
  const params = IdParams
  itemRoute(app, 'GET', '/v3/vendors/:id/bank-account/', {
    summary: 'Get a vendor’s bank account (IBAN and account number masked without accounts_payable)',
    operationId: 'getVendorBankAccount',
    tags,
    params,
    item: VendorBankAccount,
    run: ({ db, actor, params }) => vendor.getVendorAccount(db, actor, params.id),
  })
  itemRoute(app, 'PUT', '/v3/vendors/:id/bank-account/', {
    summary: 'Set a vendor’s bank account (accounts_payable): it becomes unverified and accounts payable is e-mailed',
    operationId: 'putVendorBankAccount',
    tags,
    params,
    body: VendorBankAccountInput,
    item: VendorBankAccount,
    run: ({ db, actor, params, body }) => vendor.putVendorAccount(db, actor, params.id, body),
  })
  itemRoute(app, 'POST', '/v3/vendors/:id/bank-account/verify/', {
    summary: 'Verify a vendor’s bank account (accounts_payable; someone other than who changed it)',
    operationId: 'verifyVendorBankAccount',
    tags,
    params,
    item: VendorBankAccount,
    run: ({ db, actor, params }) => vendor.verifyVendorAccount(db, actor, params.id),
  })
  collectionRoutes(app, '/v3/bank-accounts/', {
    tags,
    item: CompanyBankAccount,
    query: CompanyBankAccountListQuery,
    params,
    body: CompanyBankAccountInput,
    list: {
      summary: 'List the company’s bank accounts',
      run: ({ db, actor, query }) => company.listCompanyAccounts(db, actor, query),
    },
    create: {
      summary: 'Add a company bank account (superuser or nav_setting)',
      operationId: 'createBankAccount',
      run: ({ db, actor, body }) => company.createCompanyAccount(db, actor, body),
    },
    get: {
      summary: 'Get a company bank account',
      operationId: 'getBankAccount',
      run: ({ db, actor, params }) => company.getCompanyAccount(db, actor, params.id),
    },
  })
  itemRoute(app, 'PUT', '/v3/bank-accounts/:id/', {
    summary: 'Replace a company bank account (superuser or nav_setting)',
    operationId: 'replaceBankAccount',
    tags,
    params,
    body: CompanyBankAccountInput,
    item: CompanyBankAccount,
    run: ({ db, actor, params, body }) => company.putCompanyAccount(db, actor, params.id, body),
  })
}
