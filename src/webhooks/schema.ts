/** Webhook endpoints and deliveries on the wire (DECISIONS.md, "Events and webhooks"). */
import { Type, type Static } from 'typebox'
import { EVENT_ID_EXAMPLE, TYPE_PATTERN } from '../events/schema.ts'
import { Id, named } from '../core/schema.ts'
import { listQuery } from '../core/list-query.ts'

const EventTypes = Type.Array(Type.String({ pattern: `^(\\*|${TYPE_PATTERN.slice(1, -1)})$`, maxLength: 100 }), {
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  description: '`["*"]` for every event, or types (`vendor.created`) and families (`vendor.*`).',
  examples: [['vendor.*', 'user.deactivated']],
})

const URL_EXAMPLE = 'https://erp.example.com/hooks/procurement'
const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'https:// (http:// only where the operator allows it); must not reach a private network.',
  examples: [URL_EXAMPLE],
})
const Description = Type.String({ maxLength: 500, description: 'What the endpoint is for.', examples: ['ERP sync'] })
const Enabled = Type.Boolean({ description: 'Whether it gets deliveries.', examples: [true] })

export const WebhookEndpoint = named(
  'WebhookEndpoint',
  Type.Object({
    id: Type.Integer(),
    url: Type.String({ description: 'Where deliveries are POSTed.', examples: [URL_EXAMPLE] }),
    event_types: Type.Array(Type.String(), {
      description: 'The event types it gets: `*`, types, or families (`vendor.*`).',
      examples: [['vendor.*']],
    }),
    description: Description,
    enabled: Enabled,
    created_at: Type.String({ format: 'date-time' }),
  }),
)
export type WebhookEndpoint = Static<typeof WebhookEndpoint>

export const WebhookEndpointWithSecret = named(
  'WebhookEndpointWithSecret',
  Type.Object({
    ...WebhookEndpoint.properties,
    secret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
      description: 'Signs every delivery (Standard Webhooks); shown only in this response.',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0Ag2ofxvQ5o='],
    }),
  }),
)

export const WebhookEndpointInput = named(
  'WebhookEndpointInput',
  Type.Object(
    {
      url: Url,
      event_types: Type.Optional(EventTypes),
      description: Type.Optional(Description),
      enabled: Type.Optional(Enabled),
    },
    { additionalProperties: false },
  ),
)
export type WebhookEndpointInput = Static<typeof WebhookEndpointInput>

export const WebhookEndpointPatch = named(
  'WebhookEndpointPatch',
  Type.Object(
    {
      url: Type.Optional(Url),
      event_types: Type.Optional(EventTypes),
      description: Type.Optional(Description),
      enabled: Type.Optional(Enabled),
    },
    { additionalProperties: false },
  ),
)
export type WebhookEndpointPatch = Static<typeof WebhookEndpointPatch>

export const EndpointParams = Type.Object({ id: Id })
export const DeliveryParams = Type.Object({
  id: Id,
  delivery_id: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Id of the delivery.',
    examples: [981],
  }),
})

export const WebhookAttempt = Type.Object({
  at: Type.String({ format: 'date-time' }),
  response_status: Type.Union([Type.Integer(), Type.Null()], { description: 'null on a network error' }),
  duration_ms: Type.Integer(),
  response_body: Type.String({ description: 'The first 1 KB of the response.' }),
  error: Type.Union([Type.String(), Type.Null()]),
})

export const WebhookDelivery = named(
  'WebhookDelivery',
  Type.Object({
    id: Type.Integer(),
    event: Type.Union([Type.String(), Type.Null()], {
      description:
        'The event id (also the webhook-id header); null for the moment until the event reaches the feed (an older write still open).',
      examples: [EVENT_ID_EXAMPLE],
    }),
    event_type: Type.String({ description: 'The event’s type.', examples: ['vendor.created'] }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
      description: 'pending (more attempts to come), succeeded, or failed (no more attempts).',
      examples: ['succeeded'],
    }),
    attempts: Type.Array(WebhookAttempt, {
      description: 'Every attempt, in the order made (the first attempt first; the last is the latest).',
      examples: [[]],
    }),
    next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the next attempt is due; null once succeeded or failed.',
      examples: [null],
    }),
    created_at: Type.String({ format: 'date-time' }),
  }),
)
export type WebhookDelivery = Static<typeof WebhookDelivery>

/** The endpoints list: the usual paging, order, search (URL and description), CSV, and `enabled`. */
export const WebhookEndpointListQuery = listQuery(['id', 'created_at', 'url'], {
  enabled: Type.Optional(
    Type.Boolean({ description: 'Only the endpoints that are (true) or are not (false) enabled.', examples: [true] }),
  ),
})
export type WebhookEndpointListQuery = Static<typeof WebhookEndpointListQuery>

export const DeliveryListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Page number, from 1.' })),
    page_size: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Items per page (default 10; above 100 is read as 100).' }),
    ),
  },
  { additionalProperties: false },
)
export type DeliveryListQuery = Static<typeof DeliveryListQuery>
