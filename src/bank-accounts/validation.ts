/**
 * IBAN and BIC checks (DECISIONS: IBAN by its ISO 13616 check digits, BIC by ISO 9362 shape), by a maintained
 * library (ibantools). A BIC must also fit the ISO 20022 pattern the payment file's schema holds it to (its
 * location code never starts with 0 or 1 nor ends with O), so every accepted BIC can go into a file.
 */
import { electronicFormatIBAN, extractIBAN, isValidBIC, isValidIBAN } from 'ibantools'
import { FORBIDDEN_IN_NAMES } from '../core/schema.ts'

const XSD_BIC = /^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/

/** The IBAN in its electronic form (no spaces, upper case), or the sentence saying what is wrong. */
export function checkIban(text: string): { value: string } | { error: string } {
  const value = electronicFormatIBAN(text) ?? ''
  if (value === '' || !isValidIBAN(value))
    return {
      error:
        'must be an IBAN (ISO 13616) whose check digits are right, like DE89 3704 0044 0532 0130 00; check it ' +
        'against the vendor’s invoice or bank letter',
    }
  return { value }
}

export const ibanCountry = (iban: string): string => extractIBAN(iban).countryCode ?? iban.slice(0, 2)

/** The BIC in upper case without spaces, or the sentence saying what is wrong. */
export function checkBic(text: string): { value: string } | { error: string } {
  const value = text.replace(/\s+/g, '').toUpperCase()
  if (!isValidBIC(value) || !XSD_BIC.test(value))
    return { error: 'must be a BIC (ISO 9362) of 8 or 11 letters and digits, like COBADEFF or COBADEFFXXX' }
  return { value }
}

/** An account or routing number: letters, digits, spaces and dashes, at most 34 characters. */
export function checkAccountNumber(text: string): { value: string } | { error: string } {
  const value = text.trim()
  if (value === '' || !/^[A-Za-z0-9 -]{1,34}$/.test(value) || FORBIDDEN_IN_NAMES.test(value))
    return { error: 'must be 1 to 34 letters, digits, spaces or dashes' }
  return { value }
}

/** `DE89370400440532013000` → `******************3000`: only the last four characters shown. */
export const maskLastFour = (text: string | null): string | null =>
  text === null ? null : text.length <= 4 ? text : '*'.repeat(text.length - 4) + text.slice(-4)
