/** Role list rules and the row → API mapping. */
import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { Caller } from '../http/auth.ts'
import { listEnvelope, pageRequest } from '../http/list.ts'
import * as repo from './repository.ts'
import type { Role, RoleListQuery } from './schema.ts'

export function toRole(row: repo.RoleRow): Role {
  return { id: row.id, name: row.name, type: row.type, tier: row.tier, permissions: row.permissions }
}

export async function listRoles(db: Kysely<DB>, caller: Caller, query: RoleListQuery, request: FastifyRequest) {
  const page = pageRequest(query)
  const filters = { search: page.search }
  const { rows, count } = await repo.pageOfRoles(db, caller.tenantId, filters, page)
  return listEnvelope(request, page, count, rows.map(toRole))
}
