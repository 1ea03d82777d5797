/**
 * What a file is, from its bytes only (DECISIONS: never from its name or its declared type): binary formats
 * by their signatures (`file-type`, which also tells the office formats apart inside their zip containers),
 * and what it cannot see — text, CSV, e-mail, HTML, XML, SVG, scripts — by the checks here. Anything not on
 * the allow-list is refused, naming the type found.
 */

/** The detected types accepted, as stored and served. */
export const ALLOWED_TYPES: ReadonlySet<string> = new Set([
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/tiff',
  'image/heic',
  'image/heif',
  'text/plain',
  'text/csv',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'message/rfc822',
])

/** What was learnt while the bytes streamed by (upload.ts): the first bytes, and whether all of it is UTF-8 text. */
export interface Sniffed {
  head: Buffer
  size: number
  utf8: boolean
  nul: boolean
}

const MARKUP =
  /^\s*<(?:!doctype\s+html|html|head|body|script|iframe|object|embed|meta|link|style|title|div|p|a|img|table|form)[\s/>]/i
const ACTIVE = /<(?:script|iframe|html|object|embed)[\s/>]/i

/** The type of the spooled file at `file`; text checks use what `sniffed` saw of the whole stream. */
export async function detectType(file: string, sniffed: Sniffed): Promise<string> {
  const { fileTypeFromFile } = await import('file-type') // loaded on the first upload, not with the server
  const found = await fileTypeFromFile(file)
  if (found !== undefined) {
    if (found.mime === 'application/xml') return /<svg[\s>]/i.test(latin1(sniffed.head)) ? 'image/svg+xml' : found.mime
    if (found.mime === 'image/heic-sequence') return 'image/heic'
    return found.mime
  }
  const text = latin1(sniffed.head).replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '')
  if (sniffed.nul) return 'application/octet-stream'
  if (isEmail(text)) return 'message/rfc822'
  if (!sniffed.utf8) return 'application/octet-stream'
  const start = text.trimStart()
  if (/^<\?xml/i.test(start)) return /<svg[\s>]/i.test(text) ? 'image/svg+xml' : 'application/xml'
  if (/^<svg[\s>]/i.test(start) || /<svg[\s>][^]*xmlns/i.test(text.slice(0, 4096))) return 'image/svg+xml'
  if (MARKUP.test(start) || ACTIVE.test(text)) return 'text/html'
  if (/^<[a-z][\w:-]*[\s>]/i.test(start) && /<\/[a-z][\w:-]*>/i.test(text)) return 'application/xml'
  if (start.startsWith('#!')) return 'text/x-shellscript'
  return isCsv(text) ? 'text/csv' : 'text/plain'
}

const latin1 = (bytes: Buffer) => bytes.toString('latin1')

/** An e-mail message (RFC 5322): header lines up to the first blank line, with From and one of Date/Subject/To. */
function isEmail(text: string): boolean {
  const end = text.search(/\r?\n\r?\n/)
  if (end <= 0) return false
  const lines = text.slice(0, end).split(/\r?\n/)
  if (!lines.every((l) => /^[!-9;-~]+:/.test(l) || /^[ \t]/.test(l))) return false
  const names = new Set(lines.map((l) => /^([!-9;-~]+):/.exec(l)?.[1]?.toLowerCase()))
  return names.has('from') && (names.has('date') || names.has('subject') || names.has('to'))
}

/** Comma-, semicolon- or tab-separated: at least two lines with the same number (≥ 1) of separators. */
function isCsv(text: string): boolean {
  const lines = text.split(/\r?\n/).slice(0, 20)
  if (lines.length > 1 && lines.at(-1) !== undefined && text.length >= 65536) lines.pop() // maybe cut short
  const rows = lines.filter((l) => l !== '')
  if (rows.length < 2) return false
  return [',', ';', '\t'].some((sep) => {
    const counts = rows.map((l) => fieldsOf(l, sep))
    return counts[0]! >= 1 && counts.every((c) => c === counts[0])
  })
}

/** The separators outside double quotes in one line. */
function fieldsOf(line: string, sep: string): number {
  let n = 0
  let quoted = false
  for (const c of line) {
    if (c === '"') quoted = !quoted
    else if (c === sep && !quoted) n++
  }
  return n
}

/** A person's name for a type in a refusal. */
export function describeType(type: string): string {
  const names: Record<string, string> = {
    'text/html': 'HTML',
    'image/svg+xml': 'SVG',
    'application/xml': 'XML',
    'application/zip': 'a zip archive',
    'application/octet-stream': 'binary data of no accepted type',
    'text/x-shellscript': 'a script',
  }
  return names[type] === undefined ? type : `${names[type]} (${type})`
}

/**
 * The base name only (after the last `/` or `\`), without C0, DEL, C1 or bidi control characters, at most
 * 255 characters (code points, never a split pair); `fallback` when nothing is left.
 */
export function cleanFilename(raw: string, fallback = 'attachment'): string {
  const base = raw.slice(Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\')) + 1)
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const clean = base.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
  const wellFormed = clean.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
  const cut = [...wellFormed].slice(0, 255).join('')
  return cut.trim() === '' ? fallback : cut
}
