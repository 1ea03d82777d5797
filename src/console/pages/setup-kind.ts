/** What a set-up page is made of (pages/setup.ts draws every one from this description). */
import type { Kysely } from 'kysely'
import type { TSchema } from 'typebox'
import type { Actor } from '../../access/actor.ts'
import type { DB } from '../../db/schema.ts'
import type { Values } from '../views/forms.ts'
import type { Html } from '../views/html.ts'
import type { Field } from '../views/setup.ts'

export type Row = { id: number; name: string; [field: string]: unknown }

export interface Kind {
  title: string
  singular: string
  intro: string
  /** The columns after the first (the row's name, linking to its edit page). */
  headings: string[]
  cells: (row: Row) => (string | Html)[]
  fields: (db: Kysely<DB>, actor: Actor) => Promise<Field[]>
  schema: TSchema
  /** The API body a form's values make (text as typed: the schema judges it). */
  body: (values: Values) => Record<string, unknown>
  values: (row: Row) => Values
  rows: (db: Kysely<DB>, actor: Actor) => Promise<Row[]>
  create: (db: Kysely<DB>, actor: Actor, body: never) => Promise<unknown>
  replace: (db: Kysely<DB>, actor: Actor, id: number, body: never) => Promise<unknown>
}

export const text = (v: string | undefined) => (v ?? '').trim()
export const optional = (name: string, v: string | undefined) => (text(v) === '' ? {} : { [name]: text(v) })
/** A number as typed when it is one (else the text, for the schema to refuse in words). */
export const numberOr = (v: string | undefined) => (/^\d{1,9}$/.test(text(v)) ? Number(text(v)) : text(v))
export const isOn = (values: Values, name = 'active') => values[name] === 'on'
export const activeField: Field = {
  kind: 'checkbox',
  name: 'active',
  label: 'Active (untick to retire it; nothing is deleted)',
}
/** The keys of a checkbox group `name` that are ticked (`name.<key>` = "on"). */
export const ticked = (values: Values, name: string) =>
  Object.keys(values)
    .filter((k) => k.startsWith(`${name}.`) && values[k] === 'on')
    .map((k) => k.slice(name.length + 1))
/** A row's field as text: strings and numbers as they are, anything else empty. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '')
