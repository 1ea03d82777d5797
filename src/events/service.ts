/**
 * Events: recorded by the services that write, in the writing transaction, and read from the feed.
 * An event's id encodes its place in the feed (transaction id, then sequence number) as fixed-width hex,
 * so ids sort as strings in feed order and a cursor needs no look-up.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import type { DB } from '../db/schema.ts'
import { notFound, validationFailed } from '../core/problem.ts'
import * as repo from './repository.ts'
import { EVENT_ID_PATTERN, type Event, type EventListQuery, type EventObjects, type EventType } from './schema.ts'

export const DEFAULT_PAGE_SIZE = 100
export const MAX_PAGE_SIZE = 1000
/** How long the feed keeps events (db/maintenance.ts deletes older ones). */
export const RETENTION_DAYS = 30

const hex16 = (n: bigint) => n.toString(16).padStart(16, '0')

export const eventId = (xid: string | bigint, seq: number | bigint): string =>
  `evt_${hex16(BigInt(xid))}${hex16(BigInt(seq))}`

const MAX_SEQ = 2n ** 63n - 1n

const EVENT_ID = new RegExp(EVENT_ID_PATTERN)

/** The position an id names, or undefined when none can be (not an event id, or past the last sequence number). */
export function positionOf(id: string): repo.Position | undefined {
  if (!EVENT_ID.test(id)) return undefined
  const position = { xid: BigInt(`0x${id.slice(4, 20)}`), seq: BigInt(`0x${id.slice(20, 36)}`) }
  return position.seq > MAX_SEQ ? undefined : position
}

export const toEvent = (row: repo.EventRow): Event => ({
  id: eventId(row.xid, row.seq),
  type: row.type,
  created_at: row.created_at.toISOString(),
  data: { object: row.object as Event['data']['object'] },
})

/**
 * Records events of a write; call it with the transaction that makes the write, so the events commit
 * exactly when the write does (and vanish with it on a rollback).
 */
export function recordEvents<T extends EventType>(
  tx: Kysely<DB>,
  tenantId: number,
  type: T,
  objects: readonly EventObjects[T][],
): Promise<void> {
  return repo.insertEvents(
    tx,
    tenantId,
    objects.map((object) => ({ type, object: JSON.stringify(object) })),
  )
}

/** Records one event of a write (see `recordEvents`). */
export function recordEvent<T extends EventType>(
  tx: Kysely<DB>,
  tenantId: number,
  type: T,
  object: EventObjects[T],
): Promise<void> {
  return recordEvents(tx, tenantId, type, [object])
}

/** Every event of the tenant, whatever its location: superuser only (DECISIONS, "Who may do what"). */
const READERS = ['superuser'] as const

export async function listEvents(db: Kysely<DB>, actor: Actor, query: EventListQuery) {
  requireAny(actor, ...READERS)
  const size = Math.min(query.page_size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
  const after = query.after === undefined ? undefined : positionOf(query.after)
  if (query.after !== undefined && after === undefined) throw validationFailed({ after: ['is not an event id'] })
  const rows = await repo.pageOfEvents(db, actor.tenantId, {
    after,
    type: query.type,
    limit: size + 1,
  })
  const data = rows.slice(0, size).map(toEvent)
  return { metadata: { next_cursor: data.at(-1)?.id ?? null, has_more: rows.length > size }, data }
}

export async function getEvent(db: Kysely<DB>, actor: Actor, id: string): Promise<Event> {
  requireAny(actor, ...READERS)
  const position = positionOf(id)
  if (position === undefined) throw notFound('No such event: event ids look like evt_ and 32 hex digits.')
  const row = await repo.findEvent(db, actor.tenantId, position)
  if (row === undefined) throw notFound(`No event ${id}.`)
  return toEvent(row)
}
