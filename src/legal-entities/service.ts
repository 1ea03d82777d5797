/** Legal entity list rules and the row → API mapping. */
import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { Caller } from '../http/auth.ts'
import { listEnvelope, pageRequest } from '../http/list.ts'
import * as repo from './repository.ts'
import type { LegalEntity, LegalEntityListQuery } from './schema.ts'

export function toLegalEntity(row: repo.LegalEntityRow): LegalEntity {
  return { id: row.id, uuid: row.uuid, name: row.name, active: row.active }
}

export async function listLegalEntities(db: Kysely<DB>, caller: Caller, query: LegalEntityListQuery, request: FastifyRequest) {
  const page = pageRequest(query)
  const filters = { active: query.active, search: page.search }
  const { rows, count } = await repo.pageOfLegalEntities(db, caller.tenantId, filters, page)
  return listEnvelope(request, page, count, rows.map(toLegalEntity))
}
