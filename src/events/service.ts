/**
 * Events: recorded by the services that write, in the writing transaction, and read from the feed.
 * An event's id is its number within its tenant (migration 0012) as fixed-width hex, so ids sort as strings
 * in feed order, a cursor needs no look-up, and an id says nothing of any other tenant's writes.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import type { DB } from '../db/schema.ts'
import { notFound, validationFailed } from '../core/problem.ts'
import * as repo from './repository.ts'
import {
  EVENT_ID_PATTERN,
  type Event,
  type EventDataArgs,
  type EventListQuery,
  type EventObjects,
  type EventType,
} from './schema.ts'

export const DEFAULT_PAGE_SIZE = 100
export const MAX_PAGE_SIZE = 1000

/** The id of the tenant's event number `n`: `evt_` and 32 hex digits. */
export const eventId = (n: string | bigint): string => `evt_${BigInt(n).toString(16).padStart(32, '0')}`

const MAX_BIGINT = 2n ** 63n - 1n

const EVENT_ID = new RegExp(EVENT_ID_PATTERN)

/**
 * What an id names: an event number (`{ n }`), or the place of an id of the earlier form (transaction id
 * and sequence number, before migration 0012: its first 16 digits are never all zero), or undefined when it
 * can name nothing (not an event id, or past PostgreSQL's bigint).
 */
export function positionOf(id: string): { n: bigint } | { legacy: repo.Position } | undefined {
  if (!EVENT_ID.test(id)) return undefined
  const high = BigInt(`0x${id.slice(4, 20)}`)
  const low = BigInt(`0x${id.slice(20, 36)}`)
  if (low > MAX_BIGINT) return undefined
  return high === 0n ? { n: low } : { legacy: { xid: high, seq: low } }
}

/** Gives the tenant's events that have reached the feed their numbers (ids); see migration 0012. */
export const numberEvents = (db: Kysely<DB>, tenantId: number) => repo.numberEvents(db, tenantId)

/**
 * The key under which a stored object keeps what its event's `data` carries beside `object` (EventData): no
 * resource has a field whose name starts with `$`, and the events table keeps one JSON value per event.
 */
const DATA_KEY = '$data'

export function toEvent(row: repo.EventRow): Event {
  const stored = row.object as Record<string, unknown>
  let data: Event['data'] = { object: stored }
  if (Object.hasOwn(stored, DATA_KEY)) {
    const { [DATA_KEY]: extra, ...object } = stored
    data = { object, ...(extra as Omit<Event['data'], 'object'>) }
  }
  return { id: eventId(row.n), type: row.type, created_at: row.created_at.toISOString(), data }
}

/**
 * Records events of a write; call it with the transaction that makes the write, so the events commit
 * exactly when the write does (and vanish with it on a rollback).
 */
export function recordEvents<T extends EventType>(
  tx: Kysely<DB>,
  tenantId: number,
  type: T,
  objects: readonly EventObjects[T][],
  ...data: EventDataArgs<T>
): Promise<void> {
  const [extra] = data as [unknown?]
  return repo.insertEvents(
    tx,
    tenantId,
    objects.map((object) => ({
      type,
      object: JSON.stringify(extra === undefined ? object : { ...object, [DATA_KEY]: extra }),
    })),
  )
}

/**
 * Records one event of a write (see `recordEvents`); a type that carries more than its object (EventData)
 * takes that as the last argument, and its event shows it beside `data.object`.
 */
export function recordEvent<T extends EventType>(
  tx: Kysely<DB>,
  tenantId: number,
  type: T,
  object: EventObjects[T],
  ...data: EventDataArgs<T>
): Promise<void> {
  return recordEvents(tx, tenantId, type, [object], ...data)
}

/** Every event of the tenant, whatever its location: superuser only (DECISIONS, "Who may do what"). */
const READERS = ['superuser'] as const

export async function listEvents(db: Kysely<DB>, actor: Actor, query: EventListQuery) {
  requireAny(actor, ...READERS)
  const size = Math.min(query.page_size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
  const cursor = query.after === undefined ? { n: 0n } : positionOf(query.after)
  if (cursor === undefined) throw validationFailed({ after: ['is not an event id'] })
  await repo.numberEvents(db, actor.tenantId)
  const after = 'n' in cursor ? cursor.n : await repo.numberAtOrBefore(db, actor.tenantId, cursor.legacy)
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
  await repo.numberEvents(db, actor.tenantId)
  const row =
    'n' in position
      ? await repo.findEvent(db, actor.tenantId, position.n)
      : await repo.findEventAt(db, actor.tenantId, position.legacy)
  if (row === undefined) throw notFound(`No event ${id}.`)
  return toEvent(row)
}
