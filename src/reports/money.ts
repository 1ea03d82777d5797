/**
 * Totals of a report's amounts: signed decimal strings with 2 decimals (what SQL summed), added exactly as
 * integer cents; never a float.
 */
const SIGNED = /^(-)?(\d+)(?:\.(\d{1,2}))?$/

const cents = (text: string): bigint => {
  const m = SIGNED.exec(text)
  if (m === null) throw new RangeError(`not an amount: ${JSON.stringify(text)}`)
  const value = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0'))
  return m[1] === '-' ? -value : value
}

const text = (value: bigint): string => {
  const abs = value < 0n ? -value : value
  return `${value < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`
}

/** The exact sum of amounts: `["1.50", "-0.25"]` → `"1.25"`; `"0.00"` for none. */
export const addAmounts = (values: readonly string[]): string => text(values.reduce((s, v) => s + cents(v), 0n))

/** part ÷ whole × 100 with one decimal, rounded half-up (away from zero); null when whole is 0. */
export function percentOf(part: string, whole: string): string | null {
  const p = cents(part)
  const w = cents(whole)
  if (w === 0n) return null
  const negative = p < 0n !== w < 0n && p !== 0n
  const a = p < 0n ? -p : p
  const b = w < 0n ? -w : w
  const tenths = (a * 2000n + b) / (2n * b)
  return `${negative ? '-' : ''}${tenths / 10n}.${tenths % 10n}`
}
