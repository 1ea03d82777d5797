/**
 * Writing look-ups (superuser or nav_setting): POST and PUT on /api/v3/departments/, /api/v2/currencies/ and
 * the four vendor look-ups /api/v3/payment-terms/, shipping-terms/, payment-methods/, shipping-methods/.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Id } from '../core/schema.ts'
import { createRoute, itemRoute } from '../http/item-routes.ts'
import { VENDOR_LOOKUPS } from './routes.ts'
import { Currency, CurrencyInput, Department, DepartmentInput, VendorLookup, VendorLookupInput } from './schema.ts'
import * as service from './write.service.ts'

const IdParams = Type.Object({ id: Id })
/** "payment-terms" → "PaymentTerm", for operation ids. */
const pascal = (path: string) =>
  path
    .replace(/s$/, '')
    .split('-')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')

export const lookupWriteRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['look-ups']
  // Look-ups are cached (lookups/cache.ts): their writes wait for the change fence.
  const accessNeutral = false
  createRoute(app, '/v3/departments/', {
    summary: 'Create a department at a location (superuser or nav_setting)',
    operationId: 'createDepartment',
    tags,
    accessNeutral,
    body: DepartmentInput,
    item: Department,
    create: ({ db, actor, body }) => service.createDepartment(db, actor, body),
  })
  itemRoute(app, 'PUT', '/v3/departments/:id/', {
    summary: 'Replace a department (superuser or nav_setting); active false deactivates it',
    operationId: 'replaceDepartment',
    tags,
    accessNeutral,
    params: IdParams,
    body: DepartmentInput,
    item: Department,
    run: ({ db, actor, params, body }) => service.replaceDepartment(db, actor, params.id, body),
  })
  createRoute(app, '/v2/currencies/', {
    summary: 'Add a currency (superuser or nav_setting)',
    operationId: 'createCurrency',
    tags,
    accessNeutral,
    body: CurrencyInput,
    item: Currency,
    create: ({ db, actor, body }) => service.createCurrency(db, actor, body),
  })
  itemRoute(app, 'PUT', '/v2/currencies/:id/', {
    summary: 'Replace a currency (superuser or nav_setting); the base currency cannot be deactivated or re-rated',
    operationId: 'replaceCurrency',
    tags,
    accessNeutral,
    params: IdParams,
    body: CurrencyInput,
    item: Currency,
    run: ({ db, actor, params, body }) => service.replaceCurrency(db, actor, params.id, body),
  })
  for (const { path, table, what } of VENDOR_LOOKUPS) {
    createRoute(app, `/v3/${path}/`, {
      summary: `Create one of the ${what} (superuser or nav_setting)`,
      operationId: `create${pascal(path)}`,
      tags,
      accessNeutral,
      body: VendorLookupInput,
      item: VendorLookup,
      create: ({ db, actor, body }) => service.createVendorLookup(db, table, actor, body),
    })
    itemRoute(app, 'PUT', `/v3/${path}/:id/`, {
      summary: `Replace one of the ${what} (superuser or nav_setting); active false deactivates it`,
      operationId: `replace${pascal(path)}`,
      tags,
      accessNeutral,
      params: IdParams,
      body: VendorLookupInput,
      item: VendorLookup,
      run: ({ db, actor, params, body }) => service.replaceVendorLookup(db, table, actor, params.id, body),
    })
  }
}
