/**
 * HTML written with a tagged template: every interpolated value is escaped unless it is already `Html`
 * (another template's result), so nothing a user typed can become markup. Arrays are joined.
 *
 * Escaping also makes invisible tricks visible: control characters and the bidirectional overrides and
 * isolates (which can make `gpj.exe` read as `exe.jpg`) are shown as U+FFFD, since an entity would still be
 * the character itself. A link to anything a user typed goes through `safeHref`, so `javascript:` and other
 * schemes never reach an `href`.
 */
import { visible } from '../../core/visible.ts'

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export const escapeHtml = (text: string) => visible(text).replace(/[&<>"']/g, (c) => ESCAPES[c]!)

type Value = Html | string | number | boolean | null | undefined | readonly Value[]

function render(value: Value): string {
  if (value instanceof Html) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!
  values.forEach((value, i) => (out += render(value) + strings[i + 1]!))
  return new Html(out)
}

/** A URL someone typed, fit for an `href`: http(s) and mailto only, anything else (javascript:, data:…) → '#'. */
export function safeHref(url: string): string {
  try {
    const parsed = new URL(url.trim())
    return ['http:', 'https:', 'mailto:'].includes(parsed.protocol) ? parsed.href : '#'
  } catch {
    return '#'
  }
}
