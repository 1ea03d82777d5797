/**
 * The ISO 20022 customer credit transfer initiation, `pain.001.001.03`, that a bank executes (DECISIONS): one
 * `PmtInf` for the run — the debtor is the company account, `ReqdExctnDt` the execution date — and one
 * `CdtTrfTxInf` per item: `EndToEndId` the document's number, the creditor from the vendor's bank account,
 * `Ustrd` the invoice number. `MsgId` is the run's number; `NbOfTxs` and `CtrlSum` (in the group header and the
 * payment information) are exact. Built with an XML library (xmlbuilder2), which escapes every value; nothing
 * is put together as text. docs/payments.md maps every element to the run.
 *
 * Every text is held to its element's length (Max35Text, Max140Text) by cutting whole characters, and stripped
 * of characters XML 1.0 cannot carry, so every file validates against the schema
 * (test/fixtures/iso20022/pain.001.001.03.xsd).
 */
import { create } from 'xmlbuilder2'

export const PAIN_001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.03'

export interface Creditor {
  name: string
  iban: string | null
  accountNumber: string | null
  bic: string | null
  routingNumber: string | null
  country: string
}

export interface FileItem {
  /** The document's number (a bill's invoice number, a payment request's PAY-…). */
  endToEndId: string
  /** Decimal string with 2 decimals. */
  amount: string
  creditor: Creditor
  /** The invoice number, as the vendor will see it on their statement. */
  remittance: string
}

export interface PaymentFile {
  messageId: string
  createdAt: Date
  executionDate: string
  currency: string
  debtor: { name: string; iban: string; bic: string }
  items: readonly FileItem[]
}

// Not in XML 1.0's Char production: C0 controls other than tab, newline and carriage return, lone surrogates,
// U+FFFE and U+FFFF. Matching control characters is the point here.
/* eslint-disable no-control-regex */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
/* eslint-enable no-control-regex */

/** The text as the schema's `MaxNText` takes it: XML characters only, spaces collapsed, at most `max` characters. */
export function fit(text: string, max: number): string {
  const clean = text.replace(NOT_XML, '').replace(/\s+/g, ' ').trim()
  const chars = Array.from(clean)
  const cut = chars.length <= max ? clean : chars.slice(0, max).join('').trimEnd()
  return cut === '' ? 'NOTPROVIDED' : cut
}

/** Σ amounts (decimal strings with up to 2 decimals), exactly, with 2 decimals. */
export function controlSum(amounts: readonly string[]): string {
  let cents = 0n
  for (const amount of amounts) {
    const [whole = '0', fraction = ''] = amount.split('.')
    cents += BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2))
  }
  const text = cents.toString().padStart(3, '0')
  return `${text.slice(0, -2)}.${text.slice(-2)}`
}

/** `2026-11-28T23:05:07`: an ISODateTime without fractions, in UTC. */
const isoDateTime = (at: Date) => at.toISOString().slice(0, 19)

/** The whole file, as UTF-8 XML text. */
export function buildPain001(file: PaymentFile): string {
  const count = String(file.items.length)
  const sum = controlSum(file.items.map((i) => i.amount))
  const sepa = file.currency === 'EUR' && file.items.every((i) => i.creditor.iban !== null)

  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(PAIN_001_NAMESPACE, 'Document')
  const initiation = root.ele('CstmrCdtTrfInitn')
  const header = initiation.ele('GrpHdr')
  header.ele('MsgId').txt(fit(file.messageId, 35))
  header.ele('CreDtTm').txt(isoDateTime(file.createdAt))
  header.ele('NbOfTxs').txt(count)
  header.ele('CtrlSum').txt(sum)
  header.ele('InitgPty').ele('Nm').txt(fit(file.debtor.name, 140))

  const info = initiation.ele('PmtInf')
  info.ele('PmtInfId').txt(fit(file.messageId, 35))
  info.ele('PmtMtd').txt('TRF')
  info.ele('NbOfTxs').txt(count)
  info.ele('CtrlSum').txt(sum)
  if (sepa) info.ele('PmtTpInf').ele('SvcLvl').ele('Cd').txt('SEPA')
  info.ele('ReqdExctnDt').txt(file.executionDate)
  info.ele('Dbtr').ele('Nm').txt(fit(file.debtor.name, 140))
  const debtorAccount = info.ele('DbtrAcct')
  debtorAccount.ele('Id').ele('IBAN').txt(file.debtor.iban)
  debtorAccount.ele('Ccy').txt(file.currency)
  info.ele('DbtrAgt').ele('FinInstnId').ele('BIC').txt(file.debtor.bic)
  if (sepa) info.ele('ChrgBr').txt('SLEV')

  for (const item of file.items) {
    const tx = info.ele('CdtTrfTxInf')
    tx.ele('PmtId').ele('EndToEndId').txt(fit(item.endToEndId, 35))
    tx.ele('Amt').ele('InstdAmt', { Ccy: file.currency }).txt(item.amount)
    const { creditor } = item
    const agent = tx.ele('CdtrAgt').ele('FinInstnId')
    if (creditor.bic !== null) agent.ele('BIC').txt(creditor.bic)
    else if (creditor.routingNumber !== null) agent.ele('ClrSysMmbId').ele('MmbId').txt(fit(creditor.routingNumber, 35))
    else agent.ele('Othr').ele('Id').txt('NOTPROVIDED')
    const party = tx.ele('Cdtr')
    party.ele('Nm').txt(fit(creditor.name, 140))
    if (/^[A-Z]{2}$/.test(creditor.country)) party.ele('PstlAdr').ele('Ctry').txt(creditor.country)
    const account = tx.ele('CdtrAcct').ele('Id')
    if (creditor.iban !== null) account.ele('IBAN').txt(creditor.iban)
    else
      account
        .ele('Othr')
        .ele('Id')
        .txt(fit(creditor.accountNumber ?? '', 34))
    tx.ele('RmtInf').ele('Ustrd').txt(fit(item.remittance, 140))
  }
  return root.end({ prettyPrint: true })
}
