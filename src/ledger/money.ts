/**
 * Signed amounts with 2 decimals (the ledger's), held as integer cents: `"-12.34"` ↔ -1234n. The document
 * amounts they come from are exact (core/decimal.ts); nothing here is a float.
 */
const SIGNED = /^(-)?(\d{1,38})(?:\.(\d{1,2}))?$/

export function toCents(text: string): bigint {
  const m = SIGNED.exec(text.trim())
  if (m === null) throw new RangeError(`not an amount: ${JSON.stringify(text)}`)
  const cents = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0'))
  return m[1] === '-' ? -cents : cents
}

export function fromCents(cents: bigint): string {
  const sign = cents < 0n ? '-' : ''
  const abs = cents < 0n ? -cents : cents
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`
}

/** A stored numeric with any number of decimals, to cents (the ledger's columns have 2). */
export const numericCents = (text: string | null | undefined): bigint =>
  text === null || text === undefined ? 0n : toCents(text.replace(/^(-?\d+\.\d{2})\d*$/, '$1'))

/** (part ÷ whole × 100) with one decimal, half-up; null when whole is 0. */
export function percentOfCents(part: bigint, whole: bigint): string | null {
  if (whole === 0n) return null
  // tenths of a percent: part × 1000 / whole, rounded half-up away from zero
  const neg = part < 0n !== whole < 0n && part !== 0n
  const p = part < 0n ? -part : part
  const w = whole < 0n ? -whole : whole
  const tenths = (p * 2000n + w) / (2n * w)
  return `${neg ? '-' : ''}${tenths / 10n}.${tenths % 10n}`
}
