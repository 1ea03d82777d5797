/**
 * Writing look-ups (superuser or nav_setting): POST and PUT on /api/v3/departments/, /api/v2/currencies/ and
 * the four vendor look-ups /api/v3/payment-terms/, shipping-terms/, payment-methods/, shipping-methods/.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Id } from '../core/schema.ts'
import { ItemEnvelope } from '../http/list.ts'
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
  app.post(
    '/v3/departments/',
    {
      schema: {
        summary: 'Create a department at a location (superuser or nav_setting)',
        operationId: 'createDepartment',
        tags,
        body: DepartmentInput,
        response: { 201: ItemEnvelope(Department) },
      },
    },
    async (request, reply) => {
      const data = await service.createDepartment(request.db, request.actor, request.body)
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api/v3/departments/${data.id}/`)
        .send({ metadata: {}, data })
    },
  )
  app.put(
    '/v3/departments/:id/',
    {
      schema: {
        summary: 'Replace a department (superuser or nav_setting); active false deactivates it',
        operationId: 'replaceDepartment',
        tags,
        params: IdParams,
        body: DepartmentInput,
        response: { 200: ItemEnvelope(Department) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.replaceDepartment(request.db, request.actor, request.params.id, request.body),
    }),
  )
  app.post(
    '/v2/currencies/',
    {
      schema: {
        summary: 'Add a currency (superuser or nav_setting)',
        operationId: 'createCurrency',
        tags,
        body: CurrencyInput,
        response: { 201: ItemEnvelope(Currency) },
      },
    },
    async (request, reply) => {
      const data = await service.createCurrency(request.db, request.actor, request.body)
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api/v2/currencies/${data.id}/`)
        .send({ metadata: {}, data })
    },
  )
  app.put(
    '/v2/currencies/:id/',
    {
      schema: {
        summary: 'Replace a currency (superuser or nav_setting); the base currency cannot be deactivated or re-rated',
        operationId: 'replaceCurrency',
        tags,
        params: IdParams,
        body: CurrencyInput,
        response: { 200: ItemEnvelope(Currency) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.replaceCurrency(request.db, request.actor, request.params.id, request.body),
    }),
  )
  for (const { path, table, what } of VENDOR_LOOKUPS) {
    app.post(
      `/v3/${path}/`,
      {
        schema: {
          summary: `Create one of the ${what} (superuser or nav_setting)`,
          operationId: `create${pascal(path)}`,
          tags,
          body: VendorLookupInput,
          response: { 201: ItemEnvelope(VendorLookup) },
        },
      },
      async (request, reply) => {
        const data = await service.createVendorLookup(request.db, table, request.actor, request.body)
        return reply
          .code(201)
          .header('location', `${request.linkBase}/api/v3/${path}/${data.id}/`)
          .send({ metadata: {}, data })
      },
    )
    app.put(
      `/v3/${path}/:id/`,
      {
        schema: {
          summary: `Replace one of the ${what} (superuser or nav_setting); active false deactivates it`,
          operationId: `replace${pascal(path)}`,
          tags,
          params: IdParams,
          body: VendorLookupInput,
          response: { 200: ItemEnvelope(VendorLookup) },
        },
      },
      async (request) => ({
        metadata: {},
        data: await service.replaceVendorLookup(request.db, table, request.actor, request.params.id, request.body),
      }),
    )
  }
}
