/** Department list rules and the row → API mapping. */
import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { Caller } from '../http/auth.ts'
import { listEnvelope, pageRequest } from '../http/list.ts'
import * as repo from './repository.ts'
import type { Department, DepartmentListQuery } from './schema.ts'

export function toDepartment(row: repo.DepartmentRow): Department {
  return {
    id: row.id,
    name: row.name,
    external_id: row.external_id,
    active: row.active,
    punchout_email: row.punchout_email,
    branch: { id: row.branch_id, name: row.branch_name, headquarter: row.headquarter },
  }
}

export async function listDepartments(db: Kysely<DB>, caller: Caller, query: DepartmentListQuery, request: FastifyRequest) {
  const page = pageRequest(query)
  const filters = { location: query.location, active: query.active, search: page.search }
  const { rows, count } = await repo.pageOfDepartments(db, caller.tenantId, filters, page)
  return listEnvelope(request, page, count, rows.map(toDepartment))
}
