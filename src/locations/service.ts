/**
 * Location rules: who may write (superuser), what a request refers to (currency by name, legal entity by id,
 * both in the caller's tenant), and full replacement (docs/api.md, Locations): every field is replaced,
 * `shipping_addresses` is the complete set of alternates — with id: update that address of this location;
 * without: create; left out: deactivated, never deleted. A replacement that changes nothing writes nothing.
 */
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { type Page } from '../core/list-query.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { notFound, preconditionFailed, validationFailed, type FieldErrors } from '../core/problem.ts'
import { recordEvent } from '../events/service.ts'
import * as repo from './repository.ts'
import type { LocationInput, LocationListQuery, LocationView } from './schema.ts'

type AddressInput = LocationInput['primary_billing_address']

/** IANA zone names, canonical or alias (US/Eastern), as this runtime's time-zone data knows them. */
function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

const toAddress = (a: repo.ViewAddress) => ({
  id: a.id,
  name: a.name,
  addressLineOne: a.address_line_one,
  city: a.city,
  postalCode: a.postal_code,
  state_province: a.state_province,
  country: a.country,
})

function toView(row: repo.LocationRow): LocationView {
  const mine = row.addresses
  const primary = (kind: 'billing' | 'shipping') => toAddress(mine.find((a) => a.kind === kind)!)
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    logo: row.logo,
    currency: {
      id: row.c_id,
      name: row.c_name,
      description: row.c_description,
      rate: row.c_rate,
      base: row.c_base,
      active: row.c_active,
    },
    phoneOne: row.phone_one,
    fax: row.fax,
    email: row.email,
    primary_billing_address: primary('billing'),
    primary_shipping_address: primary('shipping'),
    shipping_addresses: mine.filter((a) => a.kind === 'alternate').map(toAddress),
    language: row.language,
    locationTimezone: row.timezone,
    headquarter: row.headquarter,
    department_count: row.department_count,
    active: row.active,
    external_id: row.external_id,
    legal_entity:
      row.legal_entity_id === null ? null : { id: row.legal_entity_id, uuid: row.le_uuid!, name: row.le_name! },
  }
}

/** A strong validator of the whole representation: it changes whenever anything a client sees changes. */
export const etagOf = (view: LocationView): string =>
  `"${createHash('sha256').update(JSON.stringify(view)).digest('base64url').slice(0, 27)}"`

async function loadView(db: Kysely<DB>, tenantId: number, id: number): Promise<LocationView | undefined> {
  const row = await repo.findLocation(db, tenantId, id)
  return row === undefined ? undefined : toView(row)
}

export async function listLocations(
  db: Kysely<DB>,
  actor: Actor,
  query: LocationListQuery,
): Promise<Page<LocationView>> {
  const result = await repo.pageOfLocations(db, actor.tenantId, query)
  return { ...result, rows: result.rows.map(toView) }
}

export async function getLocation(db: Kysely<DB>, actor: Actor, id: number) {
  const view = await loadView(db, actor.tenantId, id)
  if (view === undefined) throw notFound(`No location ${id}.`)
  return { view, etag: etagOf(view) }
}

const addressValues = (a: AddressInput): repo.AddressValues => ({
  name: a.name,
  address_line_one: a.addressLineOne,
  city: a.city,
  postal_code: a.postalCode,
  state_province: a.state_province ?? '',
  country: a.country,
})

/** Checks what the body refers to and turns it into column values, or throws 400 naming every bad field. */
async function resolve(db: Kysely<DB>, tenantId: number, input: LocationInput, locationId: number | undefined) {
  const errors: FieldErrors = {}
  const currencyName = typeof input.currency === 'string' ? input.currency : input.currency.name
  const currency = await repo.findCurrencyByName(db, tenantId, currencyName)
  if (currency === undefined) errors.currency = [`no currency named ${JSON.stringify(currencyName)}`]
  const legalEntityId =
    input.legal_entity === undefined || input.legal_entity === null
      ? null
      : typeof input.legal_entity === 'number'
        ? input.legal_entity
        : input.legal_entity.id
  if (legalEntityId !== null && (await repo.findLegalEntity(db, tenantId, legalEntityId)) === undefined) {
    errors.legal_entity = [`no legal entity ${legalEntityId}`]
  }
  const timezone = input.locationTimezone ?? ''
  if (timezone !== '' && !isTimeZone(timezone)) errors.locationTimezone = ['is not a known IANA time-zone name']
  const alternates = input.shipping_addresses ?? []
  const ids = alternates.flatMap((a) => (a.id === undefined ? [] : [a.id]))
  const foreign = locationId === undefined ? new Set(ids) : await repo.foreignAddressIds(db, tenantId, locationId, ids)
  const seen = new Set<number>()
  alternates.forEach((a, i) => {
    if (a.id === undefined) return
    if (foreign.has(a.id))
      errors[`shipping_addresses.${i}.id`] = [
        locationId === undefined
          ? 'a new location has no addresses to update; leave id out'
          : `address ${a.id} is not a shipping address of this location`,
      ]
    else if (seen.has(a.id)) errors[`shipping_addresses.${i}.id`] = [`address ${a.id} appears twice`]
    seen.add(a.id)
  })
  if (Object.keys(errors).length > 0 || currency === undefined) throw validationFailed(errors)
  const values: repo.LocationValues = {
    name: input.name,
    url: input.url ?? '',
    logo: input.logo ?? '',
    currency_id: currency.id,
    phone_one: input.phoneOne,
    fax: input.fax ?? '',
    email: input.email ?? '',
    language: input.language ?? 1,
    timezone,
    active: input.active ?? true,
    external_id: input.external_id ?? '',
    legal_entity_id: legalEntityId,
  }
  return {
    values,
    billing: addressValues(input.primary_billing_address),
    shipping: addressValues(input.primary_shipping_address),
    alternates: alternates.map((a) => ({ id: a.id, values: addressValues(a) })),
  }
}

export async function createLocation(db: Kysely<DB>, actor: Actor, input: LocationInput) {
  requireAny(actor, 'superuser')
  return inTransaction(db, async (tx) => {
    const r = await resolve(tx, actor.tenantId, input, undefined)
    const id = await repo.insertLocation(tx, actor.tenantId, r.values)
    await repo.insertAddresses(tx, actor.tenantId, id, [
      { kind: 'billing', values: r.billing },
      { kind: 'shipping', values: r.shipping },
      ...r.alternates.map((a) => ({ kind: 'alternate' as const, values: a.values })),
    ])
    const view = (await loadView(tx, actor.tenantId, id))!
    await audit(tx, actor, { action: 'location.create', resourceType: 'location', resourceId: id, changes: input })
    await recordEvent(tx, actor.tenantId, 'location.created', view)
    return { view, etag: etagOf(view) }
  })
}

const sameAddress = (row: repo.AddressRow, v: repo.AddressValues) =>
  row.name === v.name &&
  row.address_line_one === v.address_line_one &&
  row.city === v.city &&
  row.postal_code === v.postal_code &&
  row.state_province === v.state_province &&
  row.country === v.country

/** `If-Match` holds when absent, `*`, or naming the current ETag (strong comparison). */
function ifMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return true
  const tags = header.split(',').map((t) => t.trim())
  return tags.includes('*') || tags.includes(etag)
}

export async function replaceLocation(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: LocationInput,
  ifMatch: string | undefined,
) {
  requireAny(actor, 'superuser')
  return inTransaction(db, async (tx) => {
    if (!(await repo.lockLocation(tx, actor.tenantId, id))) throw notFound(`No location ${id}.`)
    const current = (await repo.findLocation(tx, actor.tenantId, id))!
    const addresses = await repo.allAddressesOf(tx, actor.tenantId, id)
    if (!ifMatchHolds(ifMatch, etagOf(toView(current)))) {
      throw preconditionFailed(
        'The location changed since you read it (If-Match does not match its ETag); read it again.',
      )
    }
    const r = await resolve(tx, actor.tenantId, input, id)
    let changed = false

    const columns = Object.keys(r.values) as (keyof repo.LocationValues)[]
    const locationChanges = Object.fromEntries(
      columns.filter((c) => current[c] !== r.values[c]).map((c) => [c, r.values[c]]),
    )
    for (const kind of ['billing', 'shipping'] as const) {
      const row = addresses.find((a) => a.kind === kind)!
      if (!sameAddress(row, r[kind])) {
        await repo.updateAddress(tx, actor.tenantId, row.id, r[kind])
        changed = true
      }
    }
    const kept = new Set<number>()
    const created: repo.AddressValues[] = []
    for (const alternate of r.alternates) {
      if (alternate.id === undefined) {
        created.push(alternate.values)
        continue
      }
      kept.add(alternate.id)
      const row = addresses.find((a) => a.id === alternate.id)!
      if (!row.active || !sameAddress(row, alternate.values)) {
        await repo.updateAddress(tx, actor.tenantId, row.id, { ...alternate.values, active: true })
        changed = true
      }
    }
    await repo.insertAddresses(
      tx,
      actor.tenantId,
      id,
      created.map((values) => ({ kind: 'alternate' as const, values })),
    )
    const dropped = addresses.filter((a) => a.kind === 'alternate' && a.active && !kept.has(a.id)).map((a) => a.id)
    await repo.deactivateAddresses(tx, actor.tenantId, dropped)
    changed ||= created.length > 0 || dropped.length > 0 || Object.keys(locationChanges).length > 0
    if (changed) {
      await repo.updateLocation(tx, actor.tenantId, id, locationChanges)
      await audit(tx, actor, {
        action: 'location.replace',
        resourceType: 'location',
        resourceId: id,
        changes: {
          ...locationChanges,
          shipping_addresses: { created: created.length, deactivated: dropped, kept: [...kept] },
        },
      })
    }
    const view = (await loadView(tx, actor.tenantId, id))!
    if (changed) await recordEvent(tx, actor.tenantId, 'location.updated', view)
    return { view, etag: etagOf(view), changed }
  })
}
