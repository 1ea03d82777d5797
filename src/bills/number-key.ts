/**
 * A vendor's invoice number and the key it is compared on (DECISIONS, "Bills and matching": unique per vendor
 * in the tenant). People and their tools write one number many ways — `INV-0042`, `inv 0042`, `ＩＮＶ–0042`
 * (fullwidth, an en dash), `INV0042` — and a bill entered twice is a bill paid twice, so the number is
 * compared on its key, and the database's unique index (migration 0030) is on the key too:
 *
 * 1. NFKC: compatibility forms become their plain letters and digits (fullwidth `Ｉ` → `I`, `①` → `1`,
 *    `ﬁ` → `fi`, `Ǆ` → `DŽ`).
 * 2. A full case fold, as JavaScript can spell it: lower, upper, then lower case. Lower case alone is a simple
 *    fold: it leaves `ß` as it is, while `SS` becomes `ss` (a full fold makes both `ss`); upper case maps `ß`
 *    to `SS`, and lowering first makes the capital `ẞ` a `ß` that then goes the same way. The round trip also
 *    makes the dotless `ı` an `i` (a full fold keeps it apart), which for a number typed on another keyboard
 *    is the right answer.
 * 3. NFKC again: case mapping can leave a decomposed letter (`ΐ` upper-cased is three code points), which
 *    step 4 would otherwise take apart.
 * 4. Everything but letters and digits (`\p{L}`, `\p{N}`) removed: spaces, dashes of every width, dots,
 *    slashes, and combining marks that did not compose into their letter.
 *
 * Characters that cannot be seen or that reorder what is seen are refused (400) rather than removed: a number
 * that shows one thing and holds another is not entered at all. That is every control character (`\p{Cc}`:
 * C0, DEL, C1 — CR, LF and tab among them), every format character (`\p{Cf}`: the bidi controls U+061C,
 * U+200E–U+200F, U+202A–U+202E and U+2066–U+2069; the zero-width U+200B–U+200D, U+2060 and U+FEFF; the soft
 * hyphen, invisible operators, tags …) and the line and paragraph separators U+2028 and U+2029. A number whose
 * key is empty (no letter or digit) is refused too.
 */

const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/u
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]/gu

/**
 * The longest key, in code points. A number is at most 100 characters, but NFKC can make one character many
 * (U+FDFA is 18); with at most 4 bytes a code point, 400 keep an index entry far below PostgreSQL's limit.
 */
export const KEY_MAX = 400

/** `INV-0042`, `inv 0042`, `ＩＮＶ–0042` → `inv0042`. */
export const numberKey = (number: string): string =>
  number.normalize('NFKC').toLowerCase().toUpperCase().toLowerCase().normalize('NFKC').replace(NOT_LETTER_OR_DIGIT, '')

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`

/** What is wrong with an invoice number as sent, or undefined when it can be entered. */
export function numberFault(number: string): string | undefined {
  const hidden = HIDDEN.exec(number)
  if (hidden !== null)
    return (
      `contains ${codePoint(hidden[0])} at position ${[...number.slice(0, hidden.index)].length + 1}, a control, ` +
      'bidi, zero-width or other invisible character; type the number without it'
    )
  const key = numberKey(number)
  if (key === '') return 'must contain a letter or a digit'
  if ([...key].length > KEY_MAX) return `has more than ${KEY_MAX} letters and digits once normalized (NFKC)`
  return undefined
}
