/**
 * Values as people read them: instants as dates and times (the exact instant on hover; the console's script
 * shows them in the browser's time zone), browsers and systems named from user agents, permission names
 * instead of keys, a user's state in words.
 */
import { addressLines, type AddressParts } from '../../core/address.ts'
import Bowser from 'bowser'
import { permissionName } from '../../core/permission-names.ts'
import { html, type Html } from './html.ts'

/**
 * "25 Nov 2026, 09:41", as `Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' })`
 * writes it in UTC, by hand: a formatter pages in several MB of the runtime's locale data, which a server
 * that only answers the API would otherwise carry for nothing (docs/benchmarks.md, "memory after use").
 */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec']
const two = (n: number) => String(n).padStart(2, '0')
const dateTime = (d: Date) =>
  `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`

/** An instant: "25 Nov 2026, 09:41 UTC", the exact ISO instant on hover and in `datetime`; `empty` when null. */
export function when(value: Date | string | null | undefined, empty = '—'): Html {
  if (value === null || value === undefined) return html`${empty}`
  const instant = typeof value === 'string' ? new Date(value) : value
  if (Number.isNaN(instant.getTime())) return html`${empty}`
  const iso = instant.toISOString()
  return html`<time datetime="${iso}" title="${iso}">${dateTime(instant)} UTC</time>`
}

/** "Chrome 131 on Windows 10" from a User-Agent header; "Unknown browser" when it names none. */
export function browserOf(userAgent: string | null | undefined): string {
  if (userAgent === null || userAgent === undefined || userAgent.trim() === '') return 'Unknown browser'
  const { browser, os } = Bowser.parse(userAgent)
  const name =
    browser.name === undefined ? 'Unknown browser' : `${browser.name} ${browser.version?.split('.')[0] ?? ''}`
  const system = os.name === undefined ? '' : ` on ${os.name}${os.versionName ? ` ${os.versionName}` : ''}`
  return `${name.trim()}${system}`
}

/** Permission keys as their names, in the order given: "Request, Approval". */
export const permissionNames = (keys: readonly string[]): string => keys.map(permissionName).join(', ') || 'none'

/** A user's state: invited (and not yet accepted), active, or deactivated. */
export function userState(user: {
  is_active: boolean
  pending_invite?: boolean
}): 'Invited' | 'Active' | 'Deactivated' {
  if (!user.is_active) return 'Deactivated'
  return user.pending_invite === true ? 'Invited' : 'Active'
}

/** "1,234,567" from "1234567": digits grouped in threes with commas (the console's one grouping, en). */
const groupDigits = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')

/**
 * A decimal string with grouping and at least `min` decimals, more only where they are not zeros (never
 * rounded in the view: the service stored what it accepted); text that is not a decimal is shown as it is.
 */
export function decimal(value: string | null | undefined, min = 2): string {
  if (value === null || value === undefined || value === '') return '—'
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim())
  if (match === null) return value
  const [, sign, whole, fraction = ''] = match
  // Trailing zeros beyond `min` go ("249.5000" → "249.50"); digits beyond `max` that are not zeros stay.
  const digits = fraction.replace(/0+$/, '').padEnd(min, '0')
  return `${sign}${groupDigits(whole!)}${digits === '' ? '' : `.${digits}`}`
}

/** An amount with its currency: "2,200.00 USD". */
export const money = (amount: string | null | undefined, currency: string) => `${decimal(amount)} ${currency}`

/** A unit price as typed, with grouping: "1,299.00", "249.50", "0.1234" (two to four decimals). */
export const unitPrice = (value: string | null | undefined) => decimal(value, 2)

/** A quantity with grouping and only the decimals it has: "1,200", "2.5". */
export const quantity = (value: string | null | undefined) => decimal(value, 0)

/** A calendar date (YYYY-MM-DD) the console's one way: "30 Nov 2026"; `empty` when null. */
export function day(value: string | null | undefined, empty = '—'): Html {
  if (value === null || value === undefined) return html`${empty}`
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value)
  if (match === null) return html`${value}`
  const [, year, month, date] = match
  return html`<time datetime="${match[0]}" data-date
    >${Number(date)} ${MONTHS[Number(month) - 1] ?? month} ${year}</time
  >`
}

export { addressLines, type AddressParts }

/** An address as lines (`<br>` between), or `empty` when it has none. */
export function address(a: AddressParts | null | undefined, empty = '—'): Html {
  const lines = a === null || a === undefined ? [] : addressLines(a)
  if (lines.length === 0) return html`${empty}`
  return html`<span class="address">${lines.map((line, i) => html`${i === 0 ? '' : html`<br />`}${line}`)}</span>`
}

/** An address on one line, parts in the country's order: "1 Main St, Chicago, IL 60601, United States". */
export const addressText = (a: AddressParts) => addressLines(a).join(', ')
