/** /api/v3/approvals/ (the inbox) and /api/v3/approval-rules/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { createRoute, deleteRoute, itemRoute } from '../http/item-routes.ts'
import { listRoute } from '../http/list.ts'
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
  listRoute(app, '/v3/approvals/', {
    summary: 'List the approvals you may see (approver=me: your inbox)',
    tags,
    query: ApprovalListQuery,
    item: Approval,
    list: ({ actor, db, query }) => service.listApprovals(db, actor, query),
  })
  itemRoute(app, 'GET', '/v3/approvals/:id/', {
    summary: 'Get an approval',
    operationId: 'getApproval',
    tags,
    params: IdParams,
    item: Approval,
    run: ({ db, actor, params }) => service.getApproval(db, actor, params.id),
  })
  itemRoute(app, 'POST', '/v3/approvals/:id/approve/', {
    summary: 'Approve (a candidate, or the delegatee of an away candidate); a second decision is a 409',
    operationId: 'approveApproval',
    tags,
    params: IdParams,
    body: Type.Union([Decision, Type.Null()]),
    item: Approval,
    run: ({ db, actor, params, body, mailBase }) =>
      service.approve(db, actor, params.id, body?.comment ?? '', mailBase),
  })
  itemRoute(app, 'POST', '/v3/approvals/:id/reject/', {
    summary: 'Reject with a comment (required); its document (request, order, bill, …) is rejected and the chain ends',
    operationId: 'rejectApproval',
    tags,
    params: IdParams,
    body: Rejection,
    item: Approval,
    run: ({ db, actor, params, body, mailBase }) => service.reject(db, actor, params.id, body.comment, mailBase),
  })

  const ruleTags = ['approval-rules']
  listRoute(app, '/v3/approval-rules/', {
    summary: 'List approval rules',
    tags: ruleTags,
    query: ApprovalRuleListQuery,
    item: ApprovalRule,
    list: ({ actor, db, query }) => rules.listRules(db, actor, query),
  })
  createRoute(app, '/v3/approval-rules/', {
    summary: 'Create an approval rule (superuser or nav_setting)',
    operationId: 'createApprovalRule',
    tags: ruleTags,
    body: ApprovalRuleInput,
    item: ApprovalRule,
    create: ({ db, actor, body }) => rules.createRule(db, actor, body),
  })
  itemRoute(app, 'GET', '/v3/approval-rules/:id/', {
    summary: 'Get an approval rule',
    operationId: 'getApprovalRule',
    tags: ruleTags,
    params: IdParams,
    item: ApprovalRule,
    run: ({ db, actor, params }) => rules.getRule(db, actor, params.id),
  })
  itemRoute(app, 'PUT', '/v3/approval-rules/:id/', {
    summary: 'Replace an approval rule (superuser or nav_setting); submitted requests keep their chain',
    operationId: 'replaceApprovalRule',
    tags: ruleTags,
    params: IdParams,
    body: ApprovalRuleInput,
    item: ApprovalRule,
    run: ({ db, actor, params, body }) => rules.replaceRule(db, actor, params.id, body),
  })
  deleteRoute(app, '/v3/approval-rules/:id/', {
    summary: 'Delete an approval rule (superuser or nav_setting)',
    operationId: 'deleteApprovalRule',
    tags: ruleTags,
    params: IdParams,
    run: ({ db, actor, params }) => rules.deleteRule(db, actor, params.id),
  })
}
