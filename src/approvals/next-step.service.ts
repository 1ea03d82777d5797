/**
 * What follows an approved step of a chain (DECISIONS, "Rules are checked when saved"): someone who approved an
 * earlier step of a document is no candidate of its later steps (as the submitter is none), and may not decide
 * them as a delegatee either; a later step left with no candidate for that reason is approved at once.
 */
import type { Kysely } from 'kysely'
import { forbidden } from '../core/problem.ts'
import type { ApprovalKind, DB, DocumentType, PlannedStep } from '../db/schema.ts'
import { documentName } from './chain.service.ts'
import * as repo from './repository.ts'
import type { DocumentRef } from './schema.ts'

/**
 * Who approved the steps of the document's current chain up to the approval `upTo` (included): each person
 * (the one who acted, and the candidate they acted for) with the first step they approved and how.
 */
async function earlierApprovers(
  tx: Kysely<DB>,
  tenantId: number,
  doc: { type: DocumentType; id: number },
  plan: readonly PlannedStep[],
  step: number,
  upTo: number,
): Promise<Map<number, { step: number; actedBy: number; onBehalfOf: number | null }>> {
  const steps = plan.map((s) => s.step).filter((s) => s <= step)
  const approvers = new Map<number, { step: number; actedBy: number; onBehalfOf: number | null }>()
  for (const row of await repo.approvedSteps(tx, tenantId, doc, steps, upTo)) {
    const given = { step: row.step, actedBy: row.acted_by!, onBehalfOf: row.on_behalf_of }
    for (const person of [row.acted_by, row.on_behalf_of])
      if (person !== null && !approvers.has(person)) approvers.set(person, given)
  }
  return approvers
}

/** 403 when `userId` approved an earlier step of the approval's chain (themselves or as a delegatee). */
export async function requireNotApprovedEarlier(
  tx: Kysely<DB>,
  tenantId: number,
  seen: repo.ApprovalRow,
  userId: number,
) {
  const doc = { type: seen.document_type, id: seen.document_id }
  const earlier = await earlierApprovers(tx, tenantId, doc, seen.plan, seen.step - 1, seen.id)
  const given = earlier.get(userId)
  if (given !== undefined)
    throw forbidden(
      `You approved step ${given.step} of this ${documentName(seen.document_type)}; someone else decides its ` +
        'later steps.',
    )
}

/**
 * Opens the step after the approved one: its candidates minus everyone who approved an earlier step of this
 * chain (DECISIONS: as the submitter is none). A step left with no candidate for that reason is approved at
 * once in the name of the one whose earlier approval covers it (the latest of them; comment "Approved at step
 * n"), and the step after it is opened the same way. Returns the approvals approved at once and the pending one
 * opened (none: the chain is done).
 */
export async function openNext(
  tx: Kysely<DB>,
  tenantId: number,
  doc: DocumentRef,
  kind: ApprovalKind,
  decided: { id: number; step: number; plan: PlannedStep[] },
): Promise<{ covered: number[]; pending?: number }> {
  const earlier = await earlierApprovers(tx, tenantId, doc, decided.plan, decided.step, decided.id)
  const covered: number[] = []
  for (const next of [...decided.plan].sort((a, b) => a.step - b.step).filter((s) => s.step > decided.step)) {
    const candidates = next.candidates.filter((c) => !earlier.has(c))
    if (candidates.length > 0)
      return {
        covered,
        pending: await repo.insertApproval(tx, tenantId, doc, kind, decided.plan, { ...next, candidates }),
      }
    const cover = next.candidates
      .map((c) => earlier.get(c)!)
      .reduce((latest, given) => (given.step > latest.step ? given : latest))
    const given = { actedBy: cover.actedBy, onBehalfOf: cover.onBehalfOf, comment: `Approved at step ${cover.step}` }
    covered.push(await repo.insertApproval(tx, tenantId, doc, kind, decided.plan, next, given))
  }
  return { covered }
}
