/**
 * Writing look-ups (DECISIONS, "Administering a tenant without SQL"): departments, currencies and the four
 * vendor look-ups, by `superuser` or `nav_setting`, each write audited. Names are unique in their list
 * (case-insensitively; departments per location), so the console's CSV import can refer to them by name;
 * the base currency cannot be deactivated, re-rated or given another code. A PUT is a full replacement: omitted fields take
 * their defaults. Nothing is deleted: `active: false` retires a row and keeps what refers to it.
 */
import { parseRate, sameRate } from '../core/decimal.ts'
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { conflict, notFound, validationFailed } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import type { VendorLookupTable } from './repository.ts'
import type { Currency, CurrencyInput, Department, DepartmentInput, VendorLookup, VendorLookupInput } from './schema.ts'
import * as repo from './write.repository.ts'

const WRITERS = ['superuser', 'nav_setting'] as const

async function departmentOf(db: Kysely<DB>, tenantId: number, id: number): Promise<Department> {
  const { branch_id, branch_name, headquarter, ...department } = await repo.departmentView(db, tenantId, id)
  return { ...department, branch: { id: branch_id, name: branch_name, headquarter } }
}

async function departmentValues(db: Kysely<DB>, actor: Actor, input: DepartmentInput, id = 0) {
  const values = {
    location_id: input.location,
    name: input.name.trim(),
    external_id: input.external_id?.trim() ?? '',
    active: input.active ?? true,
  }
  if (!(await repo.locationExists(db, actor.tenantId, input.location)))
    throw validationFailed({ location: [`there is no location ${input.location}`] })
  if (await repo.departmentNameTaken(db, actor.tenantId, input.location, values.name, id))
    throw conflict(`Location ${input.location} already has a department named ${values.name}; choose another name.`)
  return values
}

export async function createDepartment(db: Kysely<DB>, actor: Actor, input: DepartmentInput): Promise<Department> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    await repo.lockNames(tx, actor.tenantId, 'departments')
    const id = await repo.insertDepartment(tx, actor.tenantId, await departmentValues(tx, actor, input))
    await audit(tx, actor, { action: 'department.create', resourceType: 'department', resourceId: id, changes: input })
    return departmentOf(tx, actor.tenantId, id)
  })
}

export async function replaceDepartment(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: DepartmentInput,
): Promise<Department> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    await repo.lockNames(tx, actor.tenantId, 'departments')
    if ((await repo.findDepartment(tx, actor.tenantId, id)) === undefined) throw notFound(`No department ${id}.`)
    await repo.updateDepartment(tx, actor.tenantId, id, await departmentValues(tx, actor, input, id))
    await audit(tx, actor, { action: 'department.replace', resourceType: 'department', resourceId: id, changes: input })
    return departmentOf(tx, actor.tenantId, id)
  })
}

async function currencyOf(db: Kysely<DB>, tenantId: number, id: number): Promise<Currency> {
  return (await repo.findCurrency(db, tenantId, id))!
}

async function currencyValues(db: Kysely<DB>, actor: Actor, input: CurrencyInput, id = 0) {
  if (parseRate(input.rate) === 0n) throw validationFailed({ rate: ['must be more than 0'] })
  if (await repo.currencyCodeTaken(db, actor.tenantId, input.name, id))
    throw conflict(
      `The tenant already has the currency ${input.name}; each code is listed once, so change that one instead.`,
    )
  return {
    name: input.name,
    description: input.description?.trim() ?? '',
    rate: input.rate,
    active: input.active ?? true,
  }
}

export async function createCurrency(db: Kysely<DB>, actor: Actor, input: CurrencyInput): Promise<Currency> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    await repo.lockNames(tx, actor.tenantId, 'currencies')
    const id = await repo.insertCurrency(tx, actor.tenantId, await currencyValues(tx, actor, input))
    await audit(tx, actor, { action: 'currency.create', resourceType: 'currency', resourceId: id, changes: input })
    return currencyOf(tx, actor.tenantId, id)
  })
}

export async function replaceCurrency(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: CurrencyInput,
): Promise<Currency> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    await repo.lockNames(tx, actor.tenantId, 'currencies')
    const current = await repo.findCurrency(tx, actor.tenantId, id)
    if (current === undefined) throw notFound(`No currency ${id}.`)
    if (current.base && input.name !== current.name)
      throw conflict(
        `${current.name} is the base currency: its code cannot change (every order and bill is in it); add ${input.name} as another currency.`,
      )
    const values = await currencyValues(tx, actor, input, id)
    if (current.base && !values.active)
      throw conflict(`${current.name} is the base currency: it cannot be deactivated.`)
    if (current.base && !sameRate(current.rate, values.rate))
      throw conflict(`${current.name} is the base currency: its rate is always ${current.rate} and cannot be changed.`)
    // The base currency keeps its stored rate exactly; another currency takes the rate as typed.
    await repo.updateCurrency(tx, actor.tenantId, id, current.base ? { ...values, rate: current.rate } : values)
    await audit(tx, actor, { action: 'currency.replace', resourceType: 'currency', resourceId: id, changes: input })
    return currencyOf(tx, actor.tenantId, id)
  })
}

/** The singular a look-up table's audit entries and messages use: payment_terms → payment_term. */
const kindOf = (table: VendorLookupTable) => table.slice(0, -1)
const wordsOf = (table: VendorLookupTable) => kindOf(table).replace('_', ' ')

async function vendorLookupValues(
  db: Kysely<DB>,
  table: VendorLookupTable,
  actor: Actor,
  input: VendorLookupInput,
  id = 0,
) {
  const values = { name: input.name.trim(), description: input.description?.trim() ?? '', active: input.active ?? true }
  if (await repo.vendorLookupNameTaken(db, table, actor.tenantId, values.name, id))
    throw conflict(`A ${wordsOf(table)} named ${values.name} already exists; choose another name.`)
  return values
}

export async function createVendorLookup(
  db: Kysely<DB>,
  table: VendorLookupTable,
  actor: Actor,
  input: VendorLookupInput,
): Promise<VendorLookup> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    await repo.lockNames(tx, actor.tenantId, table)
    const id = await repo.insertVendorLookup(
      tx,
      table,
      actor.tenantId,
      await vendorLookupValues(tx, table, actor, input),
    )
    await audit(tx, actor, {
      action: `${kindOf(table)}.create`,
      resourceType: kindOf(table),
      resourceId: id,
      changes: input,
    })
    return (await repo.findVendorLookup(tx, table, actor.tenantId, id))!
  })
}

export async function replaceVendorLookup(
  db: Kysely<DB>,
  table: VendorLookupTable,
  actor: Actor,
  id: number,
  input: VendorLookupInput,
): Promise<VendorLookup> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    await repo.lockNames(tx, actor.tenantId, table)
    if ((await repo.findVendorLookup(tx, table, actor.tenantId, id)) === undefined)
      throw notFound(`No ${wordsOf(table)} ${id}.`)
    const values = await vendorLookupValues(tx, table, actor, input, id)
    await repo.updateVendorLookup(tx, table, actor.tenantId, id, values)
    await audit(tx, actor, {
      action: `${kindOf(table)}.replace`,
      resourceType: kindOf(table),
      resourceId: id,
      changes: input,
    })
    return (await repo.findVendorLookup(tx, table, actor.tenantId, id))!
  })
}
