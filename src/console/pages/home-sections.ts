/**
 * What Home shows (pages/home.ts): a list of sections, each a title and the counts it reads for the signed-in
 * user — each count links to its list. A module adds its section with one line in HOME_SECTIONS (expense
 * reports and travel requests, payments…). A section with nothing to count for the user is left out. This
 * month's spend against the budgets is a card of amounts, not counts: home.ts reads it (reports/home.service.ts).
 */
import type { Actor } from '../../access/actor.ts'
import { actorLocationAccess, locationsWithAny, type LocationAccess } from '../../access/location-permissions.ts'
import { listBills } from '../../bills/service.ts'
import type { ApprovalKind, PermissionKey } from '../../db/schema.ts'
import { listOrders } from '../../purchase-orders/service.ts'
import { listRequests } from '../../requests/service.ts'
import type { ConsoleDeps } from '../context.ts'
import { profileOf } from '../home.repository.ts'
import { pendingOf } from './menu.ts'

/** One count of Home: "3 requests waiting for approval", linking to the list of them. */
export interface HomeItem {
  count: number
  /** What is counted, as a phrase after the number (singular when `count` is 1: `one`). */
  label: string
  one?: string
  href: string
}

/** What a section reads: the user, their permissions by location, their pending approvals by kind. */
export interface HomeContext {
  deps: ConsoleDeps
  actor: Actor
  access: LocationAccess
  pending: Record<ApprovalKind, number> | undefined
  /** The user's person id (their profile), undefined for the operator. */
  personId: number | undefined
}

export interface HomeSection {
  /** Its heading. */
  title: string
  /** The counts, or undefined when the section is not for this user (it is then left out). */
  read: (context: HomeContext) => Promise<HomeItem[] | undefined>
  /** What it says when every count is zero. */
  none: string
}

/** Whether the user holds one of `keys` tenant-wide or at some location. */
function anywhere(c: HomeContext, ...keys: PermissionKey[]): boolean {
  if (keys.some((key) => c.actor.permissions.has(key))) return true
  const at = locationsWithAny(c.access, ...keys)
  return at === 'all' || at.length > 0
}

/** The approval kinds as Home names them, in the order it lists them. */
const KINDS: readonly [ApprovalKind, string, string][] = [
  ['order', 'requests and purchase orders to approve', 'request or purchase order to approve'],
  ['bill', 'bills to approve', 'bill to approve'],
  ['expense', 'expense reports to approve', 'expense report to approve'],
  ['travel', 'travel requests to approve', 'travel request to approve'],
  ['payment', 'payments to approve', 'payment to approve'],
]

const approvals: HomeSection = {
  title: 'Approvals waiting for you',
  none: 'Nothing waits for your approval.',
  read: async (c) => {
    if (c.pending === undefined) return undefined
    const total = Object.values(c.pending).reduce((a, b) => a + b, 0)
    if (total === 0 && !anywhere(c, 'nav_approval', 'accounts_payable')) return undefined
    return KINDS.filter(([kind]) => c.pending![kind] > 0).map(([kind, label, one]) => ({
      count: c.pending![kind],
      label,
      one,
      href: '/console/approvals',
    }))
  },
}

const count = (page: Promise<{ count: number }>) => page.then((p) => p.count)

const myRequests: HomeSection = {
  title: 'Your open requests',
  none: 'You have no open requests.',
  read: async (c) => {
    if (c.personId === undefined || !anywhere(c, 'nav_request')) return undefined
    const mine = (status: 'draft' | 'pending') =>
      count(listRequests(c.deps.db, c.actor, { requester: c.personId!, status, page: 1, page_size: 1, order_by: 'id' }))
    const [drafts, waiting] = await Promise.all([mine('draft'), mine('pending')])
    return [
      {
        count: drafts,
        label: 'drafts to finish and submit',
        one: 'draft to finish and submit',
        href: '/console/requests?mine=1&status=draft',
      },
      {
        count: waiting,
        label: 'waiting for approval',
        one: 'waiting for approval',
        href: '/console/requests?mine=1&status=pending',
      },
    ]
  },
}

const toReceive: HomeSection = {
  title: 'Orders to receive',
  none: 'No issued order waits for goods.',
  read: async (c) => {
    if (!anywhere(c, 'nav_receive')) return undefined
    const open = (receipt_status: 'none' | 'partial') =>
      count(listOrders(c.deps.db, c.actor, { status: 'issued', receipt_status, page: 1, page_size: 1, order_by: 'id' }))
    const [none, partial] = await Promise.all([open('none'), open('partial')])
    return [
      {
        count: none,
        label: 'orders with nothing received yet',
        one: 'order with nothing received yet',
        href: '/console/receiving',
      },
      { count: partial, label: 'orders partly received', one: 'order partly received', href: '/console/receiving' },
    ]
  },
}

const bills: HomeSection = {
  title: 'Bills to enter or pay',
  none: 'No bill waits for you.',
  read: async (c) => {
    if (!anywhere(c, 'accounts_payable')) return undefined
    const of = (status: 'draft' | 'approved') =>
      count(listBills(c.deps.db, c.actor, { status, page: 1, page_size: 1, order_by: 'id' }))
    const [drafts, approved] = await Promise.all([of('draft'), of('approved')])
    return [
      {
        count: drafts,
        label: 'bills being entered (drafts)',
        one: 'bill being entered (a draft)',
        href: '/console/bills?status=draft',
      },
      {
        count: approved,
        label: 'approved bills to pay',
        one: 'approved bill to pay',
        href: '/console/bills?status=approved',
      },
    ]
  },
}

/** Home's sections, in order: one line each. */
export const HOME_SECTIONS: HomeSection[] = [approvals, myRequests, toReceive, bills]

/** What Home needs to know of the user before its sections read. */
export async function homeContext(deps: ConsoleDeps, actor: Actor): Promise<HomeContext> {
  const [access, pending, profile] = await Promise.all([
    actorLocationAccess(deps.db, actor),
    pendingOf(deps, actor),
    actor.userId === null ? undefined : profileOf(deps.db, actor.tenantId, actor.userId),
  ])
  return { deps, actor, access, pending, personId: profile?.id }
}
