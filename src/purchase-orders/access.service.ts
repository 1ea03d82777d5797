/**
 * Who may see and change an order (DECISIONS, "Permissions at the order's location"): visible to holders of
 * `nav_purchase`, `nav_receive`, `accounts_payable` or `superuser` there and to its approval candidates,
 * anyone else 404; changes need `nav_purchase` there (403 for those who see it).
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { actorLocationAccess, locationsWithAny, type LocationAccess } from '../access/location-permissions.ts'
import { notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import * as orderWrites from './write-repository.ts'
import * as repo from './repository.ts'

export type OrderScope = [number, number[]] | undefined

export function scopeOf(actor: Actor, access: LocationAccess): OrderScope {
  const locations = locationsWithAny(access, 'nav_purchase', 'nav_receive', 'accounts_payable', 'superuser')
  return locations === 'all' ? undefined : [actor.userId!, locations]
}

export async function orderScope(db: Kysely<DB>, actor: Actor): Promise<OrderScope> {
  return scopeOf(actor, await actorLocationAccess(db, actor))
}

/** The order if the actor may see it, its row locked first when `lock` (writes take turns); 404 otherwise. */
export async function visibleOrder(db: Kysely<DB>, actor: Actor, scope: OrderScope, id: number, lock = false) {
  if (lock && (await orderWrites.lockOrder(db, actor.tenantId, id)) === undefined)
    throw notFound(`No purchase order ${id}.`)
  const row = await repo.findOrder(db, actor.tenantId, id, scope)
  if (row === undefined) throw notFound(`No purchase order ${id}.`)
  return row
}
