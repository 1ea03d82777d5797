/** The request editor's form as the pages read and fill it: posted lines to an API body, a request to values. */
import { Type } from 'typebox'
import { listAccounts } from '../../accounts/service.ts'
import { actorLocationAccess, locationsWithAny } from '../../access/location-permissions.ts'
import type { FieldErrors } from '../../core/problem.ts'
import { MAX_LINES, type PurchaseRequest } from '../../requests/schema.ts'
import type { ConsoleDeps, ConsoleSession } from '../context.ts'
import type { Values } from '../views/forms.ts'
import { LINE_FIELDS, REQUEST_LABELS, type RequestChoices } from '../views/request-form.ts'
import { activeVendors, placeChoices } from './request-shared.ts'
import { allRows, idOrText, readLineEditor } from './forms.ts'

/** The editor's form: text fields only; up to MAX_LINES lines of six fields (five and "remove"), and the request's own. */
export const RequestForm = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 }), {
  maxProperties: MAX_LINES * 6 + 20,
})

/** Where the editor posts: a new request, or the edit of draft `id` (pages/requests.ts, pages/budget-check.ts). */
export const requestTarget = (id?: number) =>
  id === undefined
    ? { action: '/console/requests/new', title: 'New request', cancel: '/console/requests' }
    : { action: `/console/requests/${id}/edit`, title: `Edit request #${id}`, cancel: `/console/requests/${id}` }

export const TOP = Object.keys(REQUEST_LABELS)

/** A posted editor: its values (removed lines dropped, the rest renumbered), and the lines that are not blank. */
export function readForm(body: Readonly<Record<string, string>>) {
  const { values, rows, filled, rowOf } = readLineEditor(body, {
    top: TOP,
    lineFields: LINE_FIELDS,
    edited: LINE_FIELDS,
    maxLines: MAX_LINES,
  })
  const lines = filled.map(({ line }) => ({
    description: line.description!,
    vendor: line.vendor === '' ? null : idOrText(line.vendor!),
    quantity: line.quantity!,
    unit_price: line.unit_price!,
    account: line.account === '' || line.account === undefined ? null : idOrText(line.account),
  }))
  const body_ = {
    location: idOrText(values.location ?? ''),
    department: values.department === undefined || values.department === '' ? null : idOrText(values.department),
    ...(values.currency === undefined || values.currency === '' ? {} : { currency: values.currency }),
    description: values.description ?? '',
    needed_by: values.needed_by === undefined || values.needed_by === '' ? null : values.needed_by,
    lines,
  }
  return { values, rows, rowOf, body: body_ }
}

/** The service's `lines.<i>.…` paths renamed to the editor rows those lines came from. */
export const onRows = (errors: FieldErrors, rowOf: readonly number[]): FieldErrors =>
  Object.fromEntries(
    Object.entries(errors).map(([path, messages]) => [
      path.replace(/^lines\.(\d+)/, (whole, i: string) =>
        rowOf[Number(i)] === undefined ? whole : `lines.${rowOf[Number(i)]}`,
      ),
      messages,
    ]),
  )

/** A request as its edit form shows it. */
export function valuesOfRequest(r: PurchaseRequest): Values {
  const values: Record<string, string> = {
    location: String(r.location.id),
    department: r.department === null ? '' : String(r.department.id),
    currency: r.currency,
    description: r.description,
    needed_by: r.needed_by ?? '',
  }
  r.lines.forEach((l, i) => {
    values[`lines.${i}.description`] = l.description
    values[`lines.${i}.vendor`] = l.vendor === null ? '' : String(l.vendor)
    values[`lines.${i}.quantity`] = l.quantity
    values[`lines.${i}.unit_price`] = l.unit_price
    values[`lines.${i}.account`] = l.account === null ? '' : String(l.account.id)
  })
  return values
}

/** Rows the editor shows: the lines, at least one empty one, at least three in all. */
export const rowsFor = (lines: number) => Math.min(MAX_LINES, Math.max(3, lines + 1))

/** What an edit keeps on offer: the request's location and vendors, even if no longer offered to new requests. */
export interface Keep {
  location: number
  vendors: ReadonlyMap<number, string>
}

/**
 * The form's choices: locations where the user may request (and the request's own), departments, currencies,
 * vendors, and the accounts — every one, an inactive one marked, so a line that has one keeps it when saved
 * (the service refuses an inactive account only on a new or changed line).
 */
export async function choices(deps: ConsoleDeps, session: ConsoleSession, keep?: Keep): Promise<RequestChoices> {
  const { db } = deps
  const { actor } = session
  const access = await actorLocationAccess(db, actor)
  const allowed = locationsWithAny(access, 'nav_request')
  const vendors = await activeVendors(deps, actor)
  // A vendor the request names stays on offer after it was deactivated, so saving does not drop it.
  const kept = [...(keep?.vendors ?? [])]
    .filter(([id]) => !vendors.some((v) => v.id === id))
    .map(([id, name]) => ({ id, name: `${name} (inactive)` }))
  const may = (id: number) => allowed === 'all' || allowed.includes(id) || id === keep?.location
  const accounts = await allRows((q) => listAccounts(db, actor, { ...q, order_by: 'code' }))
  return {
    ...(await placeChoices(deps, actor, may)),
    vendor: [...vendors, ...kept].map((v) => ({ value: String(v.id), label: v.name })),
    account: accounts.map((a) => ({
      value: String(a.id),
      label: `${a.code} ${a.name}`.trim() + (a.active ? '' : ' (inactive)'),
    })),
  }
}
