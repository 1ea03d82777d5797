/**
 * Events on the wire, and the registry of event types. Each module that writes declares its own types and
 * the object each carries, by declaration merging, next to its resource schema:
 *
 *     declare module '../events/schema.ts' {
 *       interface EventObjects { 'vendor.created': Vendor; 'vendor.updated': Vendor }
 *     }
 *
 * `recordEvent` then accepts exactly those types with exactly those objects; nothing here changes when a
 * module adds types.
 */
import { Type, type Static } from 'typebox'
import { named } from '../core/schema.ts'

/** Event type → the object its event carries (the resource as its GET returns it). Extended by modules. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface EventObjects {}

export type EventType = Extract<keyof EventObjects, string>

/**
 * Event type → what its event's `data` carries beside `object`, for the few types that carry more (DECISIONS:
 * `budget.exceeded` carries `data.document`). Extended by modules, as EventObjects is.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface EventData {}

/** The arguments after the object that `recordEvent` takes for type `T`: its `data` beside `object`, if any. */
export type EventDataArgs<T extends EventType> = T extends keyof EventData ? [data: EventData[T]] : []

/** A type (`vendor.created`) or every type under a prefix (`vendor.*`). */
export const TYPE_PATTERN = '^[a-z][a-z_]*(\\.[a-z][a-z_]*|\\.\\*)$'

export const EVENT_ID_PATTERN = '^evt_[0-9a-f]{32}$'
export const EVENT_ID_EXAMPLE = 'evt_00000000000003e9000000000000002a'

export const Event = named(
  'Event',
  Type.Object({
    id: Type.String({
      pattern: EVENT_ID_PATTERN,
      description: 'Opaque; ids sort (as strings) in the order the feed serves them.',
      examples: [EVENT_ID_EXAMPLE],
    }),
    type: Type.String({ description: 'What happened, e.g. `vendor.created`.', examples: ['vendor.created'] }),
    created_at: Type.String({ format: 'date-time' }),
    data: Type.Object(
      {
        object: Type.Object(
          {},
          { additionalProperties: true, description: 'The resource as its GET returns it.', examples: [{ id: 42 }] },
        ),
        document: Type.Optional(
          Type.Object(
            {
              type: Type.String({
                description: 'request, purchase_order, bill, expense_report, travel_request or payment_request.',
                examples: ['request'],
              }),
              id: Type.Integer({ description: 'Its id (as its GET path takes it).', examples: [42] }),
            },
            {
              description: 'On `budget.exceeded` only: the document that took the budget below zero or further below.',
              examples: [{ type: 'request', id: 42 }],
            },
          ),
        ),
      },
      { description: 'What the event is about.', examples: [{ object: { id: 42 } }] },
    ),
  }),
)
export type Event = Static<typeof Event>

export const EventListQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        pattern: EVENT_ID_PATTERN,
        description: 'An event id: the page starts after it.',
        examples: [EVENT_ID_EXAMPLE],
      }),
    ),
    type: Type.Optional(
      Type.String({
        pattern: TYPE_PATTERN,
        maxLength: 100,
        description: 'A type, or `prefix.*` for a family.',
        examples: ['vendor.*'],
      }),
    ),
    page_size: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Events per page (default 100; above 1,000 is read as 1,000).',
        examples: [500],
      }),
    ),
  },
  { additionalProperties: false },
)
export type EventListQuery = Static<typeof EventListQuery>

export const EventList = named(
  'EventList',
  Type.Object({
    metadata: Type.Object(
      {
        next_cursor: Type.Union([Type.String(), Type.Null()], {
          description: 'The last id on this page (pass it as `after`); null on an empty page.',
          examples: [EVENT_ID_EXAMPLE],
        }),
        has_more: Type.Boolean({ description: 'Whether more events follow this page now.', examples: [false] }),
      },
      { description: 'Where the page ends.', examples: [{ next_cursor: null, has_more: false }] },
    ),
    data: Type.Array(Event),
  }),
)

export const EventParams = Type.Object({
  // Any id up to this length is looked up: one that is not an event id of this service is simply not found (404).
  id: Type.String({ maxLength: 200, description: 'Id of the event.', examples: [EVENT_ID_EXAMPLE] }),
})
