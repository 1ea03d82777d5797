/**
 * The approval steps a draft request would go through if it were submitted now (DECISIONS, "Daily use of the
 * console": the request's page shows them before it is submitted). `previewRequestChain` is what the console's
 * request page and `GET /api/v3/requests/{id}/approval-preview/` call: the same planner as the submit
 * (chain.service.ts), so the preview and the chain cannot differ — but nothing is written.
 */
import { Type, type Static } from 'typebox'
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { toBase } from '../core/decimal.ts'
import { named } from '../core/schema.ts'
import { conflict } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { getRequest } from '../requests/service.ts'
import { draftChain, noCandidate, type ChainDocument } from './chain.service.ts'
import * as repo from './rules.repository.ts'
import { Person } from './schema.ts'

export const ChainPreviewStep = Type.Object({
  step: Type.Integer({ minimum: 1, examples: [1] }),
  candidates: Type.Array(Person, { description: 'Who could decide it (any one of them, or their delegatee).' }),
  problem: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the step has no candidate and what an administrator must do; null when it has some.',
    examples: [null],
  }),
})

export const ChainPreview = named(
  'ApprovalPreview',
  Type.Object({
    request: Type.Integer({ examples: [31] }),
    total: Type.String({ description: 'The request’s total, in its currency.', examples: ['920.00'] }),
    base_total: Type.String({
      description:
        'Its total in the base currency (÷ its currency’s rate, half-up): what `min_total` is compared with.',
      examples: ['1000.00'],
    }),
    steps: Type.Array(ChainPreviewStep, {
      description:
        'The steps in order; none: the request is approved at once when submitted. Someone who approves a step is ' +
        'no candidate of the later ones; a later step left with no candidate for that reason is approved at once.',
    }),
    submittable: Type.Boolean({
      description: 'False when a step has no candidate: the submit would be refused.',
      examples: [true],
    }),
  }),
)
export type ChainPreview = Static<typeof ChainPreview>

/**
 * The steps the draft request `id` would go through (step, candidates), for anyone who may see it. 409 when it
 * is no longer a draft (its chain is then in its `approvals`).
 */
export async function previewRequestChain(db: Kysely<DB>, actor: Actor, id: number): Promise<ChainPreview> {
  const request = await getRequest(db, actor, id)
  if (request.status !== 'draft')
    throw conflict(
      `Request ${id} is ${request.status}: only a draft's approval steps are previewed; its chain is in its approvals.`,
    )
  const currency = await repo.currencyByName(db, actor.tenantId, request.currency)
  const doc: ChainDocument = {
    document: 'request',
    locationId: request.location.id,
    total: request.total,
    requesterId: await repo.userOfProfile(db, actor.tenantId, request.requester.id),
    ...(currency === undefined ? {} : { currencyId: currency.id }),
  }
  const steps = await draftChain(db, actor.tenantId, doc)
  const people = await repo.people(db, actor.tenantId, [...new Set(steps.flatMap((s) => s.candidates))])
  return {
    request: id,
    total: request.total,
    base_total: currency === undefined ? request.total : toBase(request.total, currency.rate),
    steps: await Promise.all(
      steps.map(async (s) => ({
        step: s.step,
        candidates: s.candidates.map((c) => people.get(c)!).filter((p) => p !== undefined),
        problem: s.candidates.length === 0 ? await noCandidate(db, actor.tenantId, doc, s) : null,
      })),
    ),
    submittable: steps.every((s) => s.candidates.length > 0),
  }
}
