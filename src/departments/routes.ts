/** /api/v3/departments/ (read-only list). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/database.ts'
import { ListEnvelope, sendList } from '../http/list.ts'
import { Department, DepartmentListQuery } from './schema.ts'
import * as service from './service.ts'

export const departmentRoutes =
  (database: Database): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v3/departments/',
      {
        schema: {
          summary: 'List departments',
          tags: ['departments'],
          querystring: DepartmentListQuery,
          response: { 200: ListEnvelope(Department) },
          produces: ['application/json', 'text/csv'],
        },
      },
      async (request, reply) =>
        sendList(reply, request.query.format, await service.listDepartments(database.db, request.caller, request.query, request), Department),
    )
  }
