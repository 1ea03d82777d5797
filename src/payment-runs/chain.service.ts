/**
 * A run's approval chain (DECISIONS): a run is tenant-wide, so its rules (`document: "payment_run"`) have no
 * location and match by `min_total` on the run's total (in the base currency: ÷ its currency's rate, half-up);
 * grouped by step, ascending. A step's candidates are its approvers who hold `nav_approval` at every item's
 * location, minus the submitter. A step left with none → 409 naming the step and what to do; the run stays a
 * draft.
 */
import type { Kysely } from 'kysely'
import { holdersAt } from '../access/location-permissions.ts'
import { toBase } from '../core/decimal.ts'
import { conflict } from '../core/problem.ts'
import type { DB, PlannedStep } from '../db/schema.ts'
import * as repo from './repository.ts'

export async function planRunChain(
  db: Kysely<DB>,
  tenantId: number,
  run: { total: string; currencyId: number; locations: readonly number[]; submitterId: number },
): Promise<PlannedStep[]> {
  const rate = await repo.currencyRate(db, tenantId, run.currencyId)
  const base = rate === undefined ? run.total : toBase(run.total, rate)
  const byStep = new Map<number, Set<number>>()
  for (const rule of await repo.runRules(db, tenantId, base)) {
    const set = byStep.get(rule.step) ?? new Set<number>()
    for (const user of rule.approvers) set.add(user)
    byStep.set(rule.step, set)
  }
  const chain: PlannedStep[] = []
  for (const [step, named] of [...byStep].sort(([a], [b]) => a - b)) {
    let candidates = [...named].filter((id) => id !== run.submitterId)
    for (const location of run.locations) {
      const holders = await holdersAt(db, tenantId, candidates, location, 'nav_approval')
      candidates = candidates.filter((id) => holders.has(id))
    }
    if (candidates.length === 0)
      throw conflict(
        `Step ${step} of the payment run's approval chain has no candidate: none of its approvers, other than the ` +
          `submitter, is an active user holding nav_approval at every location the run pays for ` +
          `(${run.locations.join(', ')}). An administrator must grant nav_approval at those locations to one of the ` +
          `step's approvers, or change the payment_run approval rules of step ${step}. The run stays a draft.`,
      )
    chain.push({ step, candidates: candidates.sort((a, b) => a - b) })
  }
  return chain
}
