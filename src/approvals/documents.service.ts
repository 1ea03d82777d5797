/**
 * The documents an approval chain approves (requests, purchase orders, later bills) plug into the engine here:
 * each registers a handler, and the engine calls it — it never imports a document's module. A handler locks
 * its document while a decision is made (decisions and cancellations of one document take turns) and says
 * what the end of the chain does to it: approved after the last step, or rejected by any step. It returns the
 * events that outcome records (its document as its GET returns it), in the order a reader should see them.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import type { DB, DocumentType } from '../db/schema.ts'
import type { EventObjects, EventType } from '../events/schema.ts'
export type { DocumentRef } from './schema.ts'

export type DocumentEvent = { [T in EventType]: { type: T; object: EventObjects[T] } }[EventType]

export interface DocumentHandler {
  /** Locks the document's row for the decision; false when it is gone. */
  lock(tx: Kysely<DB>, tenantId: number, id: number): Promise<boolean>
  /** The last step was approved. */
  approved(tx: Kysely<DB>, actor: Actor, id: number): Promise<DocumentEvent[]>
  /** A step was rejected (with the comment): the chain ends. */
  rejected(tx: Kysely<DB>, actor: Actor, id: number, comment: string): Promise<DocumentEvent[]>
}

const handlers = new Map<DocumentType, DocumentHandler>()

/** Called once by each document module when it loads. */
export function registerDocument(type: DocumentType, handler: DocumentHandler): void {
  handlers.set(type, handler)
}

export function documentHandler(type: DocumentType): DocumentHandler {
  const handler = handlers.get(type)
  if (handler === undefined) throw new Error(`no approval document handler registered for ${type}`)
  return handler
}
