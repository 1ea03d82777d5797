/**
 * Values as people read them: instants as dates and times (the exact instant on hover; the console's script
 * shows them in the browser's time zone), browsers and systems named from user agents, permission names
 * instead of keys, a user's state in words.
 */
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
