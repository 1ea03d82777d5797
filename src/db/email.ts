/**
 * The one e-mail comparison of the service, for every channel (API, console, sign-in, single sign-on, SCIM,
 * invitations, the operator's CLI): two addresses are the same when they differ only in the case of the ASCII
 * letters A–Z. Nothing else folds. JavaScript's `toLowerCase` and PostgreSQL's `lower()` under a UTF-8 locale
 * both apply Unicode case mapping (U+212A KELVIN SIGN lowers to `k`), so an address that only looks like
 * another would be taken for it. `emailKey` is the rule in JavaScript; `emailIs` and `emailIn` are the same
 * rule in SQL, kept here beside it so the two cannot drift.
 */
import { sql, type RawBuilder } from 'kysely'

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LOWER = 'abcdefghijklmnopqrstuvwxyz'

/** `text` with A–Z lower-cased and every other character as it is (never Unicode case mapping). */
export const asciiLowerCase = (text: string): string =>
  text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32))

/** An e-mail address (or its domain) as compared. */
export const emailKey: (email: string) => string = asciiLowerCase

/** SQL: the key of the address in `column` (what `emailKey` gives for it). */
export const emailKeyOf = (column: string): RawBuilder<string> =>
  sql<string>`translate(${sql.ref(column)}, ${sql.lit(UPPER)}, ${sql.lit(LOWER)})`

/**
 * SQL: whether `column` holds `email`, by the rule above. The `lower()` comparison comes first only so that the
 * unique index on `(tenant_id, lower(email))` finds the candidates; the key comparison decides.
 */
export const emailIs = (column: string, email: string): RawBuilder<boolean> =>
  sql<boolean>`(lower(${sql.ref(column)}) = lower(${email}::text) and ${emailKeyOf(column)} = ${emailKey(email)})`

/** SQL: whether `column` holds one of `emails` (a non-empty list), by the rule above. */
export const emailIn = (column: string, emails: readonly string[]): RawBuilder<boolean> =>
  sql<boolean>`(lower(${sql.ref(column)}) in (${sql.join(emails.map((e) => sql`lower(${e}::text)`))})
    and ${emailKeyOf(column)} in (${sql.join(emails.map(emailKey))}))`
