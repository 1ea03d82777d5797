/** /api/v3/approvals/ (the inbox) and /api/v3/approval-rules/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import * as rules from './rules.service.ts'
import {
  Approval,
  ApprovalListQuery,
  ApprovalRule,
  ApprovalRuleInput,
  ApprovalRuleListQuery,
  Decision,
  IdParams,
  Rejection,
} from './schema.ts'
import * as service from './service.ts'

export const approvalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['approvals']
  const config = { accessNeutral: true }
  listRoute(app, '/v3/approvals/', {
    summary: 'List the approvals you may see (approver=me: your inbox)',
    tags,
    query: ApprovalListQuery,
    item: Approval,
    list: ({ actor, db, query }) => service.listApprovals(db, actor, query),
  })
  app.get(
    '/v3/approvals/:id/',
    {
      schema: {
        summary: 'Get an approval',
        operationId: 'getApproval',
        tags,
        params: IdParams,
        response: { 200: ItemEnvelope(Approval) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.getApproval(request.db, request.actor, request.params.id),
    }),
  )
  app.post(
    '/v3/approvals/:id/approve/',
    {
      config,
      schema: {
        summary: 'Approve (a candidate, or the delegatee of an away candidate); a second decision is a 409',
        operationId: 'approveApproval',
        tags,
        params: IdParams,
        body: Type.Union([Decision, Type.Null()]),
        response: { 200: ItemEnvelope(Approval) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.approve(
        request.db,
        request.actor,
        request.params.id,
        request.body?.comment ?? '',
        request.mailBase,
      ),
    }),
  )
  app.post(
    '/v3/approvals/:id/reject/',
    {
      config,
      schema: {
        summary: 'Reject with a comment (required); the request is rejected and its chain ends',
        operationId: 'rejectApproval',
        tags,
        params: IdParams,
        body: Rejection,
        response: { 200: ItemEnvelope(Approval) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.reject(request.db, request.actor, request.params.id, request.body.comment, request.mailBase),
    }),
  )

  const ruleTags = ['approval-rules']
  listRoute(app, '/v3/approval-rules/', {
    summary: 'List approval rules',
    tags: ruleTags,
    query: ApprovalRuleListQuery,
    item: ApprovalRule,
    list: ({ actor, db, query }) => rules.listRules(db, actor, query),
  })
  app.post(
    '/v3/approval-rules/',
    {
      config,
      schema: {
        summary: 'Create an approval rule (superuser or nav_setting)',
        operationId: 'createApprovalRule',
        tags: ruleTags,
        body: ApprovalRuleInput,
        response: { 201: ItemEnvelope(ApprovalRule) },
      },
    },
    async (request, reply) => {
      const rule = await rules.createRule(request.db, request.actor, request.body)
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api/v3/approval-rules/${rule.id}/`)
        .send({ metadata: {}, data: rule })
    },
  )
  app.get(
    '/v3/approval-rules/:id/',
    {
      schema: {
        summary: 'Get an approval rule',
        operationId: 'getApprovalRule',
        tags: ruleTags,
        params: IdParams,
        response: { 200: ItemEnvelope(ApprovalRule) },
      },
    },
    async (request) => ({ metadata: {}, data: await rules.getRule(request.db, request.actor, request.params.id) }),
  )
  app.put(
    '/v3/approval-rules/:id/',
    {
      config,
      schema: {
        summary: 'Replace an approval rule (superuser or nav_setting); submitted requests keep their chain',
        operationId: 'replaceApprovalRule',
        tags: ruleTags,
        params: IdParams,
        body: ApprovalRuleInput,
        response: { 200: ItemEnvelope(ApprovalRule) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await rules.replaceRule(request.db, request.actor, request.params.id, request.body),
    }),
  )
  app.delete(
    '/v3/approval-rules/:id/',
    {
      config,
      schema: {
        summary: 'Delete an approval rule (superuser or nav_setting)',
        operationId: 'deleteApprovalRule',
        tags: ruleTags,
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await rules.deleteRule(request.db, request.actor, request.params.id)
      return reply.code(204).send(null)
    },
  )
}
