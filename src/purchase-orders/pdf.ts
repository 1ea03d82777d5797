/**
 * An order as a PDF (pdf-lib, with the standard Helvetica font): number and version; the buyer (the location's
 * legal entity and its billing address) and the vendor (name and address); dates, currency, the vendor's
 * payment and shipping terms and the buyer's contact (who made the order); ship-to and bill-to; lines, totals
 * and notes — on US Letter for a location in the US or Canada, A4 elsewhere, on as many pages as the lines
 * need. Nothing is cut: descriptions, notes and addresses wrap across lines (a word wider than its column
 * across several) and pages. Text outside the font's Latin-1 range is shown as "?" (the standard fonts have no
 * other glyphs).
 */
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib'
import { addressLines, printsOnLetter } from '../core/address.ts'
import type { OrderParties } from './references-repository.ts'
import type { PurchaseOrder } from './schema.ts'

const latin1 = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?')
const A4: [number, number] = [595.28, 841.89]
const LETTER: [number, number] = [612, 792]
const MARGIN = 50
/** The description column, left of the right-aligned quantities (room for 21 digits at 10 pt). */
const DESCRIPTION_WIDTH = 175
/** An amount with its thousands grouped: 2200.00 → 2,200.00. */
const grouped = (amount: string) => amount.replace(/^(-?\d+)/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','))

/**
 * `text` broken into lines no wider than `width` at `size`: at spaces where it can, inside a word where the
 * word alone is wider. Runs of white space count as one space; an empty text is one empty line.
 */
export function wrapText(text: string, font: PDFFont, size: number, width: number): string[] {
  const fits = (t: string) => font.widthOfTextAtSize(t, size) <= width
  const lines: string[] = []
  let current = ''
  for (const word of text.split(/\s+/).filter(Boolean).map(latin1)) {
    const joined = current === '' ? word : `${current} ${word}`
    if (fits(joined)) {
      current = joined
      continue
    }
    if (current !== '') lines.push(current)
    let rest = word
    while (!fits(rest)) {
      let cut = 1
      while (cut < rest.length && fits(rest.slice(0, cut + 1))) cut++
      lines.push(rest.slice(0, cut))
      rest = rest.slice(cut)
    }
    current = rest
  }
  lines.push(current)
  return lines
}

type Address = PurchaseOrder['ship_to']
const orderAddress = (a: Address) => (a === null ? ['(none)'] : addressLines(a))

export async function renderOrderPdf(order: PurchaseOrder, parties: OrderParties): Promise<Uint8Array> {
  const doc = await PDFDocument.create()
  doc.setTitle(`${order.number} (version ${order.version})`)
  doc.setCreator('procurement-service')
  const paper = printsOnLetter(order.bill_to?.country ?? order.ship_to?.country) ? LETTER : A4
  const [width, height] = paper
  const font = await doc.embedFont(StandardFonts.Helvetica)
  const bold = await doc.embedFont(StandardFonts.HelveticaBold)
  let page: PDFPage = doc.addPage(paper)
  let y = height - MARGIN
  const text = (value: string, x: number, size = 10, f: PDFFont = font) =>
    page.drawText(latin1(value), { x, y, size, font: f })
  const right = (value: string, x: number, size = 10, f: PDFFont = font) =>
    page.drawText(latin1(value), { x: x - f.widthOfTextAtSize(latin1(value), size), y, size, font: f })
  const newline = (step = 14) => {
    y -= step
    if (y < MARGIN) {
      page = doc.addPage(paper)
      y = height - MARGIN
    }
  }
  const half = width / 2 + 10
  const column = (lines: string[]) => lines.flatMap((l) => wrapText(l, font, 10, half - MARGIN - 20))
  /** Two blocks side by side, each a bold heading and its lines. */
  const sideBySide = (left: [string, string[]], rightBlock: [string, string[]]) => {
    text(left[0], MARGIN, 10, bold)
    text(rightBlock[0], half, 10, bold)
    const [l, r] = [column(left[1]), column(rightBlock[1])]
    for (let i = 0; i < Math.max(l.length, r.length); i++) {
      newline()
      text(l[i] ?? '', MARGIN)
      text(r[i] ?? '', half)
    }
  }

  text(`Purchase order ${order.number}`, MARGIN, 18, bold)
  right(`Version ${order.version}`, width - MARGIN, 12)
  newline(26)
  const { name: vendorName, payment_terms, shipping_terms, ...vendorAddress } = parties.vendor
  const billing = order.bill_to === null ? [] : addressLines({ ...order.bill_to, name: '' })
  sideBySide(['Buyer', [parties.buyer, ...billing]], ['Vendor', [vendorName, ...addressLines(vendorAddress)]])
  newline(22)
  const contact = `${order.created_by.first_name} ${order.created_by.last_name}`.trim()
  const facts: [string, string][] = [
    ['Issued', order.issued_at === null ? 'not yet issued' : order.issued_at.slice(0, 10)],
    ['Promised', order.promise_date ?? 'no date promised'],
    ['Currency', order.currency],
    ['Payment terms', payment_terms ?? 'not set'],
    ['Shipping terms', shipping_terms ?? 'not set'],
    ['Contact', contact === '' ? order.created_by.email : `${contact}, ${order.created_by.email}`],
  ]
  for (const [label, value] of facts) {
    text(`${label}:`, MARGIN, 10, bold)
    const lines = wrapText(value, font, 10, width - 2 * MARGIN - 95)
    text(lines[0]!, MARGIN + 95)
    for (const more of lines.slice(1)) {
      newline()
      text(more, MARGIN + 95)
    }
    newline()
  }
  newline(10)
  sideBySide(['Ship to', orderAddress(order.ship_to)], ['Bill to', orderAddress(order.bill_to)])
  newline(26)
  const cols = { description: MARGIN, quantity: 350, price: 420, tax: 470, amount: width - MARGIN }
  text('Description', cols.description, 10, bold)
  right('Qty', cols.quantity, 10, bold)
  right('Unit price', cols.price, 10, bold)
  right('Tax %', cols.tax, 10, bold)
  right('Amount', cols.amount, 10, bold)
  for (const line of order.lines) {
    newline(16)
    const description = wrapText(line.description + (line.closed ? ' (closed)' : ''), font, 10, DESCRIPTION_WIDTH)
    text(description[0]!, cols.description)
    right(line.quantity, cols.quantity)
    right(line.unit_price, cols.price)
    right(line.tax_rate, cols.tax)
    right(grouped(line.amount), cols.amount)
    for (const more of description.slice(1)) {
      newline(12)
      text(more, cols.description)
    }
  }
  newline(24)
  for (const [label, value] of [
    ['Subtotal', order.subtotal],
    ['Tax', order.tax],
    [`Total (${order.currency})`, order.total],
  ] as const) {
    right(label, 470, 10, label.startsWith('Total') ? bold : font)
    right(grouped(value), cols.amount, 10, label.startsWith('Total') ? bold : font)
    newline()
  }
  if (order.notes !== '') {
    newline(10)
    text('Notes', MARGIN, 10, bold)
    for (const paragraph of order.notes.split(/\r?\n/))
      for (const line of wrapText(paragraph, font, 10, width - 2 * MARGIN)) {
        newline()
        text(line, MARGIN)
      }
  }
  return doc.save()
}
