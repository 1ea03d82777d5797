/**
 * One order's page as the console shows it to the signed-in user: its revisions, the bills they may see
 * (through the bills service's list, filtered to the order), what they may do there, and the e-mail form
 * prefilled with the vendor's addresses; and reading that form's recipients.
 */
import { actorLocationAccess, holdsAnyAt } from '../../access/location-permissions.ts'
import { listBills } from '../../bills/service.ts'
import { Problem, type FieldErrors } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { SendInput } from '../../purchase-orders/input.schema.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import { listRevisions } from '../../purchase-orders/service.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import { getVendor } from '../../vendors/service.ts'
import type { ConsoleDeps, ConsoleSession } from '../context.ts'
import type { FormState } from '../views/forms.ts'
import { orderView } from '../views/order.ts'
import { deciderOf } from './request-shared.ts'
import { historySection, orderLedTo } from './history.ts'
import { documentBoxesFor } from './attachments.ts'

export interface PageNotes {
  flash?: string | undefined
  problem?: string | undefined
  /** The e-mail form as posted, with its errors (else it is prefilled with the vendor's addresses). */
  send?: FormState | undefined
  sendProblem?: string | undefined
}

/** The vendor's e-mail addresses, comma-separated ("" when it has none or cannot be read). */
async function vendorEmails(deps: ConsoleDeps, session: ConsoleSession, o: PurchaseOrder): Promise<string> {
  try {
    return (await getVendor(deps.db, deps.lookups, session.actor, o.vendor.id)).email.join(', ')
  } catch (error) {
    if (error instanceof Problem && error.status === 404) return ''
    throw error
  }
}

export async function orderPage(deps: ConsoleDeps, session: ConsoleSession, o: PurchaseOrder, notes: PageNotes) {
  const { db } = deps
  const [revisions, delegators, access] = await Promise.all([
    listRevisions(db, session.actor, o.id),
    myDelegators(db, session.actor),
    actorLocationAccess(db, session.actor),
  ])
  const decidable = new Set(
    o.approvals.filter((a) => deciderOf(session.actor, delegators, a) !== undefined).map((a) => a.id),
  )
  const can = {
    purchase: holdsAnyAt(access, o.location.id, 'nav_purchase'),
    receive: holdsAnyAt(access, o.location.id, 'nav_receive'),
    bill: holdsAnyAt(access, o.location.id, 'accounts_payable'),
  }
  // Bills are for those who see bills at the location (DECISIONS: accounts_payable, nav_purchase, superuser);
  // to anyone else an empty section would wrongly say there are none.
  const bills =
    can.purchase || can.bill
      ? (await listBills(db, session.actor, { purchase_order: o.id, page: 1, page_size: 100, order_by: 'id' })).rows
      : null
  const send =
    notes.send ??
    (can.purchase && o.status === 'issued'
      ? { values: { to: await vendorEmails(deps, session, o) }, errors: {} }
      : { values: {}, errors: {} })
  const [ledTo, history, boxes] = await Promise.all([
    orderLedTo(deps, session.actor, o.id),
    historySection(deps, session.actor, 'purchase_order', o.id),
    documentBoxesFor(deps, session, 'purchase_order', o.id),
  ])
  return orderView(
    {
      ledTo,
      history,
      boxes,
      order: o,
      revisions,
      bills,
      can,
      decidable,
      send,
      sendProblem: notes.sendProblem,
      flash: notes.flash,
      problem: notes.problem,
    },
    session,
  )
}

const checkSend = bodyChecker(SendInput)

/**
 * The e-mail form's recipients: addresses separated by commas, semicolons or spaces, each held to the API's
 * own format for `to` (at most 20). Field errors as sentences, or the send body.
 */
export function readRecipients(
  body: Readonly<Record<string, string>>,
): { ok: true; input: { to: string[]; message?: string } } | { ok: false; errors: FieldErrors } {
  const to = (body.to ?? '').split(/[\s,;]+/).filter((a) => a !== '')
  const message = body.message?.trim() ?? ''
  const errors: Record<string, string[]> = {}
  const add = (field: string, text: string) => (errors[field] ??= []).push(text)
  if (to.length === 0) add('to', 'Enter at least one e-mail address, e.g. orders@vendor.example.')
  else if (to.length > 20) add('to', `Enter at most 20 addresses; there are ${to.length}.`)
  const bad = to.filter((address) => !checkSend({ to: [address] }).ok)
  if (bad.length > 0)
    add(
      'to',
      `${bad.map((a) => JSON.stringify(a)).join(', ')} ${bad.length === 1 ? 'is not an e-mail address' : 'are not e-mail addresses'}: write each like orders@vendor.example, separated by commas.`,
    )
  if (message.length > 4000) add('message', 'Shorten the message to at most 4,000 characters.')
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  return { ok: true, input: { to, ...(message === '' ? {} : { message }) } }
}
