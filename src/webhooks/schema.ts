/** Webhook endpoints and deliveries on the wire (DECISIONS.md, "Events and webhooks"). */
import { Type, type Static } from 'typebox'
import { TYPE_PATTERN } from '../events/schema.ts'
import { named } from '../http/schema.ts'

const EventTypes = Type.Array(Type.String({ pattern: `${TYPE_PATTERN.slice(0, -1)}|^\\*$`, maxLength: 100 }), {
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  description: '`["*"]` for every event, or types (`vendor.created`) and families (`vendor.*`).',
})

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'https:// (http:// only where the operator allows it); must not reach a private network.',
})
const Description = Type.String({ maxLength: 500 })

export const WebhookEndpoint = named(
  'WebhookEndpoint',
  Type.Object({
    id: Type.Integer(),
    url: Type.String(),
    event_types: Type.Array(Type.String()),
    description: Type.String(),
    enabled: Type.Boolean(),
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
    }),
  }),
)

export const WebhookEndpointInput = Type.Object(
  {
    url: Url,
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type WebhookEndpointInput = Static<typeof WebhookEndpointInput>

export const WebhookEndpointPatch = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type WebhookEndpointPatch = Static<typeof WebhookEndpointPatch>

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
export const EndpointParams = Type.Object({ id: Id })
export const DeliveryParams = Type.Object({ id: Id, delivery_id: Id })

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
    event: Type.String(),
    event_type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attempts: Type.Array(WebhookAttempt),
    next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  }),
)
export type WebhookDelivery = Static<typeof WebhookDelivery>

export const DeliveryListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    page_size: Type.Optional(Type.Integer({ minimum: 1, description: 'default 10; above 100 is read as 100' })),
  },
  { additionalProperties: false },
)
export type DeliveryListQuery = Static<typeof DeliveryListQuery>
