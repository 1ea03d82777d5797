/**
 * The demo's approval rules, purchase requests and approvals, made through the services as an administrator
 * would (no table writes): rules, and a few requests in each state — so a newcomer sees a full inbox on first
 * start. The admin's inbox holds the Head Office request and, while the buyer (the East Warehouse's approver)
 * is away (delegated to the admin), the East Warehouse one.
 */
import type { Kysely } from 'kysely'
import { operatorActor, type Actor } from '../access/actor.ts'
import { approve, reject } from '../approvals/service.ts'
import { createRule } from '../approvals/rules.service.ts'
import { PERMISSION_KEYS, type DB, type PermissionKey } from '../db/schema.ts'
import { cancelRequest, createRequest, getRequest, submitRequest } from '../requests/service.ts'
import { seedBills } from './demo-bills.ts'
import { seedOrders } from './demo-orders.ts'

export interface DemoPeople {
  tenantId: number
  domain: string
  locations: number[]
  vendors: number[]
  admin: { userId: number; profileId: number; email: string }
  buyer: { userId: number; profileId: number; email: string }
  requester: { userId: number; profileId: number; email: string }
  manager: { userId: number; profileId: number; email: string }
}

const personActor = (base: Actor, who: { userId: number; email: string }, keys: readonly PermissionKey[]): Actor => ({
  ...base,
  userId: who.userId,
  email: who.email,
  permissions: new Set(keys),
})

/** The approval rules: the Head Office's and the East Warehouse's first steps, and a second step above 1,000. */
export async function seedRules(tx: Kysely<DB>, p: DemoPeople): Promise<void> {
  const operator = operatorActor({ id: p.tenantId, domain: p.domain })
  const [headOffice, east] = p.locations as [number, number, number]
  // The Head Office's requests go to the admin or the manager, so the admin's own first request has an approver.
  const office = [p.admin.profileId, p.manager.profileId]
  await createRule(tx, operator, { location: headOffice, step: 1, approvers: office })
  await createRule(tx, operator, { location: east, step: 1, approvers: [p.buyer.profileId] })
  await createRule(tx, operator, { location: null, step: 2, min_total: '1000', approvers: office })
}

/** The requests in each state, the orders made from the approved one, and the bills against those orders. */
export async function seedRequests(tx: Kysely<DB>, p: DemoPeople): Promise<void> {
  const operator = operatorActor({ id: p.tenantId, domain: p.domain })
  const admin = personActor(operator, p.admin, PERMISSION_KEYS)
  const rita = personActor(operator, p.requester, ['nav_request'])
  const [headOffice, east, berlin] = p.locations as [number, number, number]

  const line = (quantity: string, unit_price: string, description: string, vendor: number | null = null) => ({
    description,
    quantity,
    unit_price,
    vendor,
  })
  const draft = (location: number, description: string, lines: ReturnType<typeof line>[]) =>
    createRequest(tx, rita, { location, description, lines })

  await draft(headOffice, 'Standing desks for the analysts', [line('4', '349.50', 'Standing desk', p.vendors[6])])
  const pendingHq = await draft(headOffice, 'Printer toner, Q1', [line('6', '42.99', 'Toner cartridge', p.vendors[10])])
  await submitRequest(tx, rita, pendingHq.id)
  const pendingEast = await draft(east, 'Pallet wrap and labels', [
    line('20', '18.75', 'Pallet wrap roll', p.vendors[7]),
    line('5', '12.5', 'Label rolls'),
  ])
  await submitRequest(tx, rita, pendingEast.id)
  const approved = await draft(berlin, 'Welcome kits for new hires', [line('3', '25', 'Welcome kit')])
  await submitRequest(tx, rita, approved.id)
  const approvedHq = await draft(headOffice, 'Coffee machine service', [
    line('1', '180', 'Annual service', p.vendors[9]),
  ])
  const submitted = await submitRequest(tx, rita, approvedHq.id)
  await approve(tx, admin, submitted.approvals[0]!.id, 'Budgeted.')
  const rejected = await draft(headOffice, 'Team offsite catering', [line('40', '55', 'Lunch', p.vendors[9])])
  const chain = await submitRequest(tx, rita, rejected.id)
  await approve(tx, admin, chain.approvals[0]!.id)
  // 2,200.00 is over 1,000: step 2 follows; the admin approved step 1, so the manager decides it and rejects it.
  const manager = personActor(operator, p.manager, ['nav_approval'])
  const step2 = (await getRequest(tx, admin, rejected.id)).approvals.find((a) => a.status === 'pending')!
  await reject(tx, manager, step2.id, 'Over the quarter’s events budget; try again in Q2.')
  const cancelled = await draft(headOffice, 'Duplicate of the toner order', [line('6', '42.99', 'Toner cartridge')])
  await cancelRequest(tx, rita, cancelled.id)
  const orders = await seedOrders(tx, admin, operator, { ...p, buyerProfileId: p.buyer.profileId }, approvedHq.id)
  // Rita also enters the vendors' bills at the Head Office (an Accounts Payable role there, demo-bills.ts).
  const payables = personActor(operator, p.requester, ['nav_request', 'accounts_payable'])
  const people = { admin, payables }
  await seedBills(tx, people, orders)
}
