/**
 * The documents that carry attachments and comments (DECISIONS, "Attachments and comments"), in one registry
 * filled from src/documents.ts (`registerAllDocuments`): each document module exports one `Attachable`
 * (e.g. src/bills/attachable.ts) and adds it to the explicit list there — nothing registers itself on import.
 *
 * An attachable answers one question for the attachment and comment routes: what may this actor do with
 * document `id`? `load` returns null when the actor cannot see it (the routes answer 404), else its location,
 * whether the actor may act on it (add attachments and comments: its requester or employee, the permission
 * the document type requires at its location, or an approval candidate — 403 otherwise), whether an
 * uploader may still delete their own attachments (a draft or awaiting approval), its console page and a
 * label for e-mails. `load` must reuse the document's own visibility rule (its view service and
 * src/access/document-scope.ts), never write a second one.
 *
 * @example
 * export const billAttachable: Attachable = {
 *   type: 'bill',
 *   segment: 'bills',
 *   load: async (db, actor, id) => {
 *     const row = await findVisibleBill(db, actor, id) // undefined when not visible
 *     if (row === undefined) return null
 *     return { location_id: row.location_id, can_act: …, uploader_may_delete: ['draft', 'pending_approval'].includes(row.status),
 *       console_path: `/console/bills/${id}`, label: `Bill ${row.number}` }
 *   },
 * }
 */
import { sql, type Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { approvalCandidateOf } from '../access/approvers.ts'
import { actorLocationAccess, holdsAnyAt } from '../access/location-permissions.ts'
import type { DB, PermissionKey } from '../db/schema.ts'

export const ATTACHABLE_TYPES = [
  'request',
  'purchase_order',
  'receipt',
  'bill',
  'expense_report',
  'travel_request',
  'payment_request',
] as const
export type AttachableType = (typeof ATTACHABLE_TYPES)[number]

/** A document one actor can see, as far as attachments and comments need it. */
export interface AttachableDocument {
  location_id: number
  /** May add attachments and comments (its requester/employee, the type's permission at the location, an approval candidate). */
  can_act: boolean
  /** Whether an uploader may still delete their own attachment (the document is a draft or awaiting approval). */
  uploader_may_delete: boolean
  /** The document's console page, e.g. `/console/bills/12` (made absolute with the public URL in e-mails). */
  console_path: string
  /** How a person names it, e.g. `Bill B-0012` or `Purchase order PO-0003`. */
  label: string
  /** Documents whose attachments are also listed here, read-only (an order made from a request lists the request's). */
  inherits?: readonly { type: AttachableType; id: number }[]
}

export interface Attachable {
  type: AttachableType
  /** The URL segment: `/api/v3/{segment}/{id}/attachments/` (`requests`, `purchase-orders`, `bills`, …). */
  segment: string
  /** The document as `actor` sees it, read through `db` (maybe a transaction); null when they cannot see it. */
  load(db: Kysely<DB>, actor: Actor, id: number): Promise<AttachableDocument | null>
}

const registry = new Map<AttachableType, Attachable>()

/** Registers attachable documents (called from src/documents.ts); registering a type twice replaces it. */
export function registerAttachables(list: readonly Attachable[]): void {
  for (const item of list) registry.set(item.type, item)
}

export const attachables = (): Attachable[] => [...registry.values()]

export function attachableOf(type: AttachableType): Attachable | undefined {
  return registry.get(type)
}

/**
 * The usual `can_act`: the document's owner (`owner`, a user id: a requester, an employee), a holder of one
 * of `keys` at its location (a superuser holds every key), or a candidate or decider of one of its approvals.
 */
export async function mayAct(
  db: Kysely<DB>,
  actor: Actor,
  doc: { type: string; id: number; location_id: number; owner?: number | null },
  ...keys: PermissionKey[]
): Promise<boolean> {
  if (actor.userId !== null && doc.owner === actor.userId) return true
  if (holdsAnyAt(await actorLocationAccess(db, actor), doc.location_id, ...keys)) return true
  if (actor.userId === null) return false
  const candidate = approvalCandidateOf(
    actor.userId,
    doc.type,
    sql<number>`${actor.tenantId}::int`,
    sql<number>`${doc.id}::int`,
  )
  const { rows } = await sql<{ yes: boolean }>`select ${candidate} as yes`.execute(db)
  return rows[0]?.yes === true
}

/** Runs a module's own "find it if visible" (which may throw its 404) and answers null instead of the 404. */
export async function orNull<T>(find: () => Promise<T | undefined>): Promise<T | null> {
  try {
    return (await find()) ?? null
  } catch (error) {
    if ((error as { status?: number }).status === 404) return null
    throw error
  }
}
