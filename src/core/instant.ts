/**
 * Whether PostgreSQL stores an RFC 3339 instant that the `date-time` format let through as the same instant
 * inside years 0001–9999 (which every response's `date-time` spells). The format checks the year as written,
 * not in UTC: `9999-12-31T23:00:00-02:00`, a leap second at the end of 9999, or a fraction that rounds up to
 * the next microsecond there are year 10000 in UTC, `0001-01-01T00:30:00+01:00` is year 0; and PostgreSQL
 * refuses an offset of 16 hours or more. Each would be a 500 where a 400 belongs.
 */
const INSTANT = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(\.\d+)?(?:[Zz]|([+-])(\d\d)(?::?(\d\d))?)$/

/** Why the database cannot hold `text` as given, or undefined when it can. */
export function instantFault(text: string): string | undefined {
  const m = INSTANT.exec(text)
  if (m === null) return 'must be a date-time (RFC 3339)'
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHours = '0', offsetMinutes = '0'] = m
  if (Number(offsetHours) > 15) return 'has a UTC offset of 16 hours or more, which the database cannot hold'
  const at = new Date(0)
  at.setUTCFullYear(Number(year), Number(month) - 1, Number(day))
  // A leap second (:60) is the next minute's start, as PostgreSQL reads it; the fraction to the microsecond.
  const micros = Math.round(Number(`0${fraction}`) * 1e6)
  at.setUTCHours(Number(hour), Number(minute), Number(second), Math.floor(micros / 1000))
  const offset = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000
  const utc = new Date(at.getTime() - (sign === '-' ? -offset : offset))
  const utcYear = utc.getUTCFullYear()
  if (utcYear < 1 || utcYear > 9999) return 'must fall within the years 0001 to 9999 in UTC'
  return undefined
}
