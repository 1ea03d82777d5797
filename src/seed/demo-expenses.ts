/**
 * The demo's expense report and trip, made through the services as the people would: Rita's approved trip to
 * Berlin (no travel rule, so approved at once) and her expense report of it, submitted and waiting for the
 * Head Office's expense approvers (an `expense_report` rule). Its two lines stay at or under the receipt
 * threshold; the demo carries no receipt files (see docs/expenses.md).
 */
import type { Kysely } from 'kysely'
import { operatorActor, type Actor } from '../access/actor.ts'
import { createRule } from '../approvals/rules.service.ts'
import type { DB } from '../db/schema.ts'
import { submitReport } from '../expense-reports/lifecycle.service.ts'
import { createReport } from '../expense-reports/service.ts'
import { createTravel, submitTravel } from '../travel-requests/service.ts'
import type { DemoPeople } from './demo-requests.ts'

export async function seedExpenses(tx: Kysely<DB>, p: DemoPeople): Promise<void> {
  const operator = operatorActor({ id: p.tenantId, domain: p.domain })
  const rita: Actor = {
    ...operator,
    userId: p.requester.userId,
    email: p.requester.email,
    permissions: new Set(['nav_request']),
  }
  const [headOffice] = p.locations as [number]
  await createRule(tx, operator, {
    document: 'expense_report',
    location: headOffice,
    step: 1,
    approvers: [p.admin.profileId, p.manager.profileId],
  })
  const trip = await createTravel(tx, rita, {
    location: headOffice,
    purpose: 'Supplier visit',
    destination: 'Berlin',
    departure_date: '2026-12-07',
    return_date: '2026-12-09',
    estimates: [
      { category: 'airfare', amount: '420' },
      { category: 'lodging', amount: '300' },
    ],
  })
  await submitTravel(tx, rita, trip.id)
  const report = await createReport(tx, rita, {
    location: headOffice,
    title: 'Supplier visit, Berlin',
    travel_request: trip.id,
    lines: [
      { date: '2026-12-07', merchant: 'Airport taxi', amount: '24.50' },
      { date: '2026-12-08', merchant: 'Lunch with the supplier', amount: '19.80' },
    ],
  })
  await submitReport(tx, rita, report.id)
}
