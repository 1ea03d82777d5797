/** /api/v3/webhook-endpoints/: endpoints, their secrets and their deliveries (superuser only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Config } from '../config.ts'
import { ItemEnvelope, ListEnvelope, listEnvelope, listRoute } from '../http/list.ts'
import type { Policy } from './destinations.ts'
import {
  DeliveryListQuery,
  DeliveryParams,
  EndpointParams,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointListQuery,
  WebhookEndpointPatch,
  WebhookEndpointWithSecret,
} from './schema.ts'
import * as service from './service.ts'

export const webhookRoutes =
  (config: Readonly<Config>): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['webhooks']
    const policy: Policy = {
      allowHttp: config.WEBHOOK_ALLOW_HTTP,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    }
    const neutral = { accessNeutral: true }
    const base = '/v3/webhook-endpoints/'
    listRoute(app, base, {
      summary: 'List webhook endpoints',
      tags,
      query: WebhookEndpointListQuery,
      item: WebhookEndpoint,
      list: ({ db, actor, query }) => service.listEndpoints(db, actor, query),
    })
    app.post(
      base,
      {
        config: neutral,
        schema: {
          summary: 'Create a webhook endpoint (its secret shown once)',
          tags,
          body: WebhookEndpointInput,
          response: { 201: ItemEnvelope(WebhookEndpointWithSecret) },
        },
      },
      async (request, reply) => {
        const endpoint = await service.createEndpoint(request.db, request.actor, policy, request.body)
        return reply
          .code(201)
          .header('location', `${request.linkBase}/api/v3/webhook-endpoints/${endpoint.id}/`)
          .send({ metadata: {}, data: endpoint })
      },
    )
    app.get(
      `${base}:id/`,
      {
        schema: {
          summary: 'Get a webhook endpoint',
          tags,
          params: EndpointParams,
          response: { 200: ItemEnvelope(WebhookEndpoint) },
        },
      },
      async (request) => ({
        metadata: {},
        data: await service.getEndpoint(request.db, request.actor, request.params.id),
      }),
    )
    app.patch(
      `${base}:id/`,
      {
        config: neutral,
        schema: {
          summary: 'Change a webhook endpoint',
          tags,
          params: EndpointParams,
          body: WebhookEndpointPatch,
          response: { 200: ItemEnvelope(WebhookEndpoint) },
        },
      },
      async (request) => ({
        metadata: {},
        data: await service.updateEndpoint(request.db, request.actor, policy, request.params.id, request.body),
      }),
    )
    app.delete(
      `${base}:id/`,
      {
        config: neutral,
        schema: { summary: 'Delete a webhook endpoint', tags, params: EndpointParams, response: { 204: Type.Null() } },
      },
      async (request, reply) => {
        await service.deleteEndpoint(request.db, request.actor, request.params.id)
        return reply.code(204).send(null)
      },
    )
    app.post(
      `${base}:id/rotate-secret/`,
      {
        config: neutral,
        schema: {
          summary: 'Rotate the secret (the old one signs 24 h more)',
          tags,
          params: EndpointParams,
          response: { 200: ItemEnvelope(WebhookEndpointWithSecret) },
        },
      },
      async (request) => ({
        metadata: {},
        data: await service.rotateSecret(request.db, request.actor, request.params.id),
      }),
    )
    app.get(
      `${base}:id/deliveries/`,
      {
        schema: {
          summary: "An endpoint's deliveries, newest first",
          tags,
          params: EndpointParams,
          querystring: DeliveryListQuery,
          response: { 200: ListEnvelope(WebhookDelivery) },
        },
      },
      async (request) =>
        listEnvelope(
          request,
          await service.listDeliveries(request.db, request.actor, request.params.id, request.query),
        ),
    )
    app.post(
      `${base}:id/deliveries/:delivery_id/retry/`,
      {
        config: neutral,
        schema: {
          summary: 'Attempt a delivery again now',
          tags,
          params: DeliveryParams,
          response: { 202: Type.Null() },
        },
      },
      async (request, reply) => {
        const { id, delivery_id } = request.params
        await service.retryDelivery(request.db, request.actor, id, delivery_id, config.webhookRetryMs.length)
        return reply.code(202).send(null)
      },
    )
  }
