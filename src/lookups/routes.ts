/**
 * The look-up lists, read-only: /api/v2/currencies/, /api/v3/legal-entities/, /api/v3/departments/,
 * /api/v3/roles/, and the vendor look-ups /api/v3/payment-terms/, shipping-terms/, payment-methods/,
 * shipping-methods/. Every one answers through the same list contract (paging, search, filters, CSV).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listRoute } from '../http/list.ts'
import {
  Currency,
  CurrencyListQuery,
  Department,
  DepartmentListQuery,
  LegalEntity,
  LegalEntityListQuery,
  Role,
  RoleListQuery,
  VendorLookup,
  VendorLookupListQuery,
} from './schema.ts'
import * as service from './service.ts'

export const VENDOR_LOOKUPS = [
  { path: 'payment-terms', table: 'payment_terms', what: 'payment terms' },
  { path: 'shipping-terms', table: 'shipping_terms', what: 'shipping terms' },
  { path: 'payment-methods', table: 'payment_methods', what: 'payment methods' },
  { path: 'shipping-methods', table: 'shipping_methods', what: 'shipping methods' },
] as const

export const lookupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['look-ups']
  listRoute(app, '/v2/currencies/', {
    summary: 'List currencies',
    tags,
    query: CurrencyListQuery,
    item: Currency,
    list: ({ actor, db, query }) => service.listCurrencies(db, actor, query),
  })
  listRoute(app, '/v3/legal-entities/', {
    summary: 'List legal entities',
    tags,
    query: LegalEntityListQuery,
    item: LegalEntity,
    list: ({ actor, db, query }) => service.listLegalEntities(db, actor, query),
  })
  listRoute(app, '/v3/departments/', {
    summary: 'List departments',
    tags,
    query: DepartmentListQuery,
    item: Department,
    list: ({ actor, db, query }) => service.listDepartments(db, actor, query),
  })
  listRoute(app, '/v3/roles/', {
    summary: 'List roles with their permission keys',
    tags,
    query: RoleListQuery,
    item: Role,
    list: ({ actor, db, query }) => service.listRoles(db, actor, query),
  })
  for (const { path, table, what } of VENDOR_LOOKUPS) {
    listRoute(app, `/v3/${path}/`, {
      summary: `List ${what} (the ids a vendor's ${table.slice(0, -1)}_ref takes)`,
      tags,
      query: VendorLookupListQuery,
      item: VendorLookup,
      list: ({ actor, db, query }) => service.listVendorLookups(db, table, actor, query),
    })
  }
}
