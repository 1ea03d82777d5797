/**
 * Currency conversion between two non-base currencies, exactly (DECISIONS, "Expense reports and travel
 * requests"): amount ÷ its currency's rate × the target currency's rate, rounded half-up to 2 decimals, in one
 * step (never through a rounded base amount). Rates are units of a currency per one unit of the base currency,
 * with up to 6 decimals; amounts are decimal strings with up to 4 decimals.
 */
import { parseDecimal, parseRate } from '../core/decimal.ts'

const cents = (value: bigint) => {
  const digits = value.toString().padStart(3, '0')
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`
}

/** `amount` in a currency of rate `from`, in a currency of rate `to`: `convert("100", "0.92", "1.35")` → `"146.74"`. */
export function convert(amount: string, from: string, to: string): string {
  const a = parseDecimal(amount) // 1/10^4ths
  const f = parseRate(from) // 1/10^6ths
  const t = parseRate(to)
  if (f === 0n) throw new RangeError('a rate of 0 converts nothing')
  // amount ÷ from × to in cents = a × t × 100 / (10^4 × f) = a × t / (100 f); half-up: add half the divisor.
  const divisor = 100n * f
  return cents((2n * a * t + divisor) / (2n * divisor))
}
