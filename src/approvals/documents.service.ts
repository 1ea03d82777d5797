/**
 * The documents an approval chain approves (requests, purchase orders, bills, and every document added after
 * them) plug into the engine here, and only here: the engine knows a document through its handler, never its
 * table or module. Each document module exports one handler; `src/documents.ts` registers them all, in one
 * explicit list, when the app is built.
 *
 * A handler says which pending count its approvals make (`kind`), how a person names the document in an
 * e-mail (`describe`), locks it while a decision is made (decisions and cancellations of one document take
 * turns), and what the end of its chain does: approved after the last step, or rejected by any step. Both
 * return the events the outcome records (the document as its GET returns it), in the order a reader should see
 * them; every outcome records at least one.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import type { ApprovalKind, DB, DocumentType } from '../db/schema.ts'
import type { EventObjects, EventType } from '../events/schema.ts'
export type { DocumentRef } from './schema.ts'

export type DocumentEvent = { [T in EventType]: { type: T; object: EventObjects[T] } }[EventType]

/** How messages name a document. */
export interface DocumentFacts {
  /** Short, for a subject line: `request #12`, `purchase order PO-000042`. */
  label: string
  /** In a sentence, with what a decider needs at a glance: `request #12 “Chairs” (59.97 USD, Head Office)`. */
  title: string
  /** Its page in the console, from the tenant's origin: `/console/requests/12`. */
  path: string
  /**
   * Whom the end of its chain is told to (a request's requester), with how the message names the document;
   * absent when nobody is told.
   */
  owner?: { email: string; wants: boolean; active: boolean; summary: string }
}

export interface DocumentHandler {
  type: DocumentType
  /** The `pending_approvals_count` its approvals count in. */
  kind: ApprovalKind
  /** Locks the document's row for the decision; false when it is gone. */
  lock(tx: Kysely<DB>, tenantId: number, id: number): Promise<boolean>
  /**
   * Every location whose permission a decision re-checks, when the document spans more than the one its
   * approvals record (a payment run: each item's location); absent for a document of one location.
   */
  decisionLocations?(tx: Kysely<DB>, tenantId: number, id: number): Promise<number[]>
  describe(tx: Kysely<DB>, tenantId: number, id: number): Promise<DocumentFacts>
  /** The last step was approved. */
  approved(tx: Kysely<DB>, actor: Actor, id: number): Promise<DocumentEvent[]>
  /** A step was rejected (with the comment): the chain ends. */
  rejected(tx: Kysely<DB>, actor: Actor, id: number, comment: string): Promise<DocumentEvent[]>
}

const handlers = new Map<DocumentType, DocumentHandler>()

/** Registers the documents (src/documents.ts, once, when the app is built); a type registered twice is a bug. */
export function registerDocuments(list: readonly DocumentHandler[]): void {
  for (const handler of list) {
    const known = handlers.get(handler.type)
    if (known !== undefined && known !== handler) throw new Error(`two approval handlers for ${handler.type}`)
    handlers.set(handler.type, handler)
  }
}

export function documentHandler(type: DocumentType): DocumentHandler {
  const handler = handlers.get(type)
  if (handler === undefined) throw new Error(`no approval document handler registered for ${type}`)
  return handler
}
