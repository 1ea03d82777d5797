/**
 * Exact decimal arithmetic for money and quantities, on BigInt: a decimal string (`"19.99"`, up to 4
 * decimals, no sign, no exponent) is held as an integer count of 1/10,000ths. Products and sums are exact;
 * only the final total is rounded, half-up, to 2 decimals. Never a float.
 */
const SCALE = 4
const UNIT = 10n ** BigInt(SCALE)

/** The decimal strings accepted on the wire (the schemas use the same pattern). */
export const DECIMAL_PATTERN = '^\\d{1,16}(\\.\\d{1,4})?$'
/**
 * What the arithmetic takes: the wire's decimals and what is computed from them — a line's amount (16 + 16
 * integer digits) and a total of many such lines, which the `numeric(40, 2)` columns hold — never more.
 */
const DECIMAL = /^\d{1,38}(\.\d{1,4})?$/

/** `"19.99"` → 199900n (ten-thousandths). Throws on anything but an unsigned decimal with up to 4 decimals. */
export function parseDecimal(text: string): bigint {
  if (!DECIMAL.test(text)) throw new RangeError(`not a decimal string: ${JSON.stringify(text)}`)
  const [whole, fraction = ''] = text.split('.')
  return BigInt(whole!) * UNIT + BigInt(fraction.padEnd(SCALE, '0'))
}

/** A scaled integer (`scale` decimals) as a decimal string with exactly `places` decimals, rounded half-up. */
function format(value: bigint, scale: number, places: number): string {
  let v = value
  if (scale > places) {
    const divisor = 10n ** BigInt(scale - places)
    v = (v + divisor / 2n) / divisor // values are never negative: half-up is "add half, truncate"
  }
  const digits = v.toString().padStart(places + 1, '0')
  return places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`
}

/** Σ quantity × unit_price over the lines, rounded half-up to 2 decimals: `"59.97"`. */
export function lineTotal(lines: readonly { quantity: string; unit_price: string }[]): string {
  let sum = 0n // in 1/10^8ths: the exact product of two 1/10^4ths
  for (const line of lines) sum += parseDecimal(line.quantity) * parseDecimal(line.unit_price)
  return format(sum, 2 * SCALE, 2)
}

/** A stored decimal (`"2.5000"`) without trailing zeros (`"2.5"`, `"3"`): how quantities and prices are shown. */
export function trimDecimal(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text
}

/** Compares two decimal strings: negative, zero or positive. */
export const compareDecimal = (a: string, b: string): number => {
  const d = parseDecimal(a) - parseDecimal(b)
  return d < 0n ? -1 : d > 0n ? 1 : 0
}

/** quantity × unit_price, rounded half-up to 2 decimals (an order line's `amount`). */
export const lineAmount = (quantity: string, unitPrice: string): string =>
  format(parseDecimal(quantity) * parseDecimal(unitPrice), 2 * SCALE, 2)

/** amount × rate / 100, rounded half-up to 2 decimals (a line's tax at `rate` percent). */
export const percentOf = (amount: string, rate: string): string =>
  format(parseDecimal(amount) * parseDecimal(rate), 2 * SCALE + 2, 2)

/** The exact sum of decimal strings, with 2 decimals (rounded half-up if any has more). */
export function sumDecimals(values: readonly string[]): string {
  let sum = 0n
  for (const v of values) sum += parseDecimal(v)
  return format(sum, SCALE, 2)
}

/** Whether `value` exceeds `base` by more than `percent` percent: value > base × (1 + percent / 100). */
export const exceedsByPercent = (value: string, base: string, percent: string): boolean =>
  parseDecimal(value) * 100n * UNIT > parseDecimal(base) * (100n * UNIT + parseDecimal(percent))

/** a × (1 + percent / 100), exactly, as a decimal string without trailing zeros (a tolerance's limit). */
export const withPercent = (value: string, percent: string): string =>
  trimDecimal(format(parseDecimal(value) * (100n * UNIT + parseDecimal(percent)), 2 * SCALE + 2, SCALE))

/** a − b for a ≥ b, as a decimal string without trailing zeros; "0" when b ≥ a. */
export function subtractDecimal(a: string, b: string): string {
  const d = parseDecimal(a) - parseDecimal(b)
  return d <= 0n ? '0' : trimDecimal(format(d, SCALE, SCALE))
}

/** a + b, as a decimal string without trailing zeros. */
export const addDecimal = (a: string, b: string): string =>
  trimDecimal(format(parseDecimal(a) + parseDecimal(b), SCALE, SCALE))

/**
 * The largest value a quantity column (`numeric(20, 4)`: 16 integer digits) holds. Every counter the service
 * keeps of quantities — received, rejected, billed — is checked against it before it is written, so a sum
 * that would overflow the column is refused with a problem naming the line, never a 500.
 */
export const QUANTITY_MAX = '9999999999999999.9999'

/** Whether a decimal string fits a quantity column (at most {@link QUANTITY_MAX}). */
export const fitsQuantity = (value: string): boolean => parseDecimal(value) <= parseDecimal(QUANTITY_MAX)

/** Exchange rates carry 6 decimals (`"1.350000"`): held as integer millionths, never as a float. */
const RATE = /^\d{1,9}(\.\d{1,6})?$/

/** `"0.92"` → 920000n (millionths). Throws on anything but an unsigned decimal with up to 6 decimals. */
export function parseRate(text: string): bigint {
  if (!RATE.test(text)) throw new RangeError(`not a rate: ${JSON.stringify(text)}`)
  const [whole, fraction = ''] = text.split('.')
  return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'))
}

/** Whether two rates are the same number (`"1.50"` and `"1.5"`), compared exactly. */
export const sameRate = (a: string, b: string): boolean => parseRate(a) === parseRate(b)

/**
 * An amount in a currency whose rate is `rate` (units of it per one unit of the base currency) in the base
 * currency: amount ÷ rate, rounded half-up to 2 decimals, exactly.
 */
export function toBase(amount: string, rate: string): string {
  const r = parseRate(rate)
  if (r === 0n) throw new RangeError('a rate of 0 converts nothing')
  // amount = A / 10^4, rate = r / 10^6: amount ÷ rate in cents = A × 10^4 / r, rounded half-up.
  const cents = (2n * parseDecimal(amount) * 10_000n + r) / (2n * r)
  return format(cents, 2, 2)
}
