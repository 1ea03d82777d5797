/**
 * Bills own what counts as billed (DECISIONS: `billed_quantity` and `billing_status` count submitted,
 * approved and paid bills): after any change of a bill's status, its order's lines are set to what the
 * counted bills name — in the bill's transaction, the order and its lines locked first.
 */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import { setBilled } from '../purchase-orders/receiving.service.ts'
import * as repo from './repository.ts'

export async function refreshBilled(tx: Kysely<DB>, tenantId: number, orderId: number) {
  await setBilled(tx, tenantId, orderId, await repo.billedByLine(tx, tenantId, orderId))
}
