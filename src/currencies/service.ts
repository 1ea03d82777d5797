/** Currency list rules and the row → API mapping. */
import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { Caller } from '../http/auth.ts'
import { listEnvelope, pageRequest } from '../http/list.ts'
import * as repo from './repository.ts'
import type { Currency, CurrencyListQuery } from './schema.ts'

export function toCurrency(row: repo.CurrencyRow): Currency {
  return { id: row.id, name: row.name, description: row.description, rate: row.rate, base: row.base, active: row.active }
}

export async function listCurrencies(db: Kysely<DB>, caller: Caller, query: CurrencyListQuery, request: FastifyRequest) {
  const page = pageRequest(query)
  const filters = { active: query.active, base: query.base, name: query.name, search: page.search }
  const { rows, count } = await repo.pageOfCurrencies(db, caller.tenantId, filters, page)
  return listEnvelope(request, page, count, rows.map(toCurrency))
}
