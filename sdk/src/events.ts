/**
 * Events: typed by their `type`, read from the feed (`client.events.list`), and received by webhook
 * (`verifyWebhook`, Standard Webhooks).
 */
import type { components, operations } from './generated/openapi.ts'
import type { Transport } from './http.ts'

type Schemas = components['schemas']

/** Event type → the object its event carries (the resource as its GET returns it). */
export interface EventObjects {
  'vendor.created': Schemas['Vendor']
  'vendor.updated': Schemas['Vendor']
  'location.created': Schemas['Location']
  'location.updated': Schemas['Location']
  'user.created': Schemas['UserProfile']
  'user.updated': Schemas['UserProfile']
  'user.deactivated': Schemas['UserProfile']
  'request.created': Schemas['PurchaseRequest']
  'request.submitted': Schemas['PurchaseRequest']
  'request.approved': Schemas['PurchaseRequest']
  'request.rejected': Schemas['PurchaseRequest']
  'request.cancelled': Schemas['PurchaseRequest']
  'approval.created': Schemas['Approval']
  'approval.approved': Schemas['Approval']
  'approval.rejected': Schemas['Approval']
}

export type EventType = keyof EventObjects

/** An event whose `data.object` is typed by its `type` (narrow with `if (event.type === 'vendor.created')`). */
export type ProcurementEvent = {
  [K in EventType]: { id: string; type: K; created_at: string; data: { object: EventObjects[K] } }
}[EventType]

/** An event of a type this SDK does not know yet (the service may add types): its object untyped. */
export interface OtherEvent {
  id: string
  type: string
  created_at: string
  data: { object: Record<string, unknown> }
}

export type AnyEvent = ProcurementEvent | OtherEvent

type EventQuery = NonNullable<operations['listEvents']['parameters']['query']>

interface EventPage {
  metadata: { next_cursor: string | null; has_more: boolean }
  data: AnyEvent[]
}

/** The event feed (needs superuser or nav_setting). */
export class Events {
  constructor(private readonly http: Transport) {}

  /**
   * Every event after `after` (from the oldest kept without it), oldest first, page by page, lazily. Keep the
   * last `id` you handled and pass it as `after` next time: nothing is skipped, even across restarts.
   * @example for await (const event of client.events.list({ after: lastSeen })) { handle(event); lastSeen = event.id }
   */
  async *list(query: EventQuery = {}): AsyncGenerator<AnyEvent> {
    let after = query.after
    for (;;) {
      const page = await this.page({ ...query, ...(after !== undefined ? { after } : {}) })
      yield* page.data
      if (!page.metadata.has_more || page.metadata.next_cursor === null) return
      after = page.metadata.next_cursor
    }
  }

  /**
   * One page of the feed and where it ends.
   * @example const { data, metadata } = await client.events.page({ type: 'vendor.*', page_size: 500 })
   */
  async page(query: EventQuery = {}): Promise<EventPage> {
    return (await this.http.request<EventPage>('GET', '/api/v3/events/', { query })).data
  }

  /**
   * One event by id.
   * @example const event = await client.events.get('evt_…')
   */
  async get(id: string): Promise<AnyEvent> {
    return (await this.http.request<{ data: AnyEvent }>('GET', `/api/v3/events/${encodeURIComponent(id)}/`)).data.data
  }
}
