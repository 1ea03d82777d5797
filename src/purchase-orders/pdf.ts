/**
 * An order as a PDF (pdf-lib, with the standard Helvetica font): number, version, vendor, ship-to, bill-to,
 * lines, totals and currency, on as many A4 pages as the lines need. Nothing is cut: descriptions, notes
 * and addresses wrap across lines (a word wider than its column across several) and pages. Text outside the
 * font's Latin-1 range is shown as "?" (the standard fonts have no other glyphs).
 */
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib'
import type { PurchaseOrder } from './schema.ts'

const latin1 = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?')
const A4: [number, number] = [595.28, 841.89]
const MARGIN = 50
/** The description column, left of the right-aligned quantities (room for 21 digits at 10 pt). */
const DESCRIPTION_WIDTH = 175

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
const addressLines = (a: Address) =>
  a === null
    ? ['(none)']
    : [
        a.name,
        a.addressLineOne,
        `${a.postalCode} ${a.city}`.trim(),
        [a.state_province, a.country].filter(Boolean).join(', '),
      ]

export async function renderOrderPdf(order: PurchaseOrder, vendorName: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create()
  doc.setTitle(`${order.number} (version ${order.version})`)
  doc.setCreator('procurement-service')
  const font = await doc.embedFont(StandardFonts.Helvetica)
  const bold = await doc.embedFont(StandardFonts.HelveticaBold)
  let page: PDFPage = doc.addPage(A4)
  let y = A4[1] - MARGIN
  const text = (value: string, x: number, size = 10, f: PDFFont = font) =>
    page.drawText(latin1(value), { x, y, size, font: f })
  const right = (value: string, x: number, size = 10, f: PDFFont = font) =>
    page.drawText(latin1(value), { x: x - f.widthOfTextAtSize(latin1(value), size), y, size, font: f })
  const newline = (step = 14) => {
    y -= step
    if (y < MARGIN) {
      page = doc.addPage(A4)
      y = A4[1] - MARGIN
    }
  }

  text(`Purchase order ${order.number}`, MARGIN, 18, bold)
  right(`Version ${order.version}`, A4[0] - MARGIN, 12)
  newline(24)
  text(`Vendor: ${vendorName}`, MARGIN, 11, bold)
  right(`Currency: ${order.currency}`, A4[0] - MARGIN, 11)
  newline(16)
  if (order.issued_at !== null) text(`Issued: ${order.issued_at.slice(0, 10)}`, MARGIN)
  if (order.promise_date !== null) right(`Promised: ${order.promise_date}`, A4[0] - MARGIN)
  newline(22)
  text('Ship to', MARGIN, 10, bold)
  text('Bill to', 310, 10, bold)
  const column = (lines: string[]) => lines.flatMap((l) => wrapText(l, font, 10, 250))
  const ship = column(addressLines(order.ship_to))
  const bill = column(addressLines(order.bill_to))
  for (let i = 0; i < Math.max(ship.length, bill.length); i++) {
    newline()
    text(ship[i] ?? '', MARGIN)
    text(bill[i] ?? '', 310)
  }
  newline(26)
  const cols = { description: MARGIN, quantity: 350, price: 420, tax: 470, amount: A4[0] - MARGIN }
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
    right(line.amount, cols.amount)
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
    right(value, cols.amount, 10, label.startsWith('Total') ? bold : font)
    newline()
  }
  if (order.notes !== '') {
    newline(10)
    text('Notes', MARGIN, 10, bold)
    for (const paragraph of order.notes.split(/\r?\n/))
      for (const line of wrapText(paragraph, font, 10, A4[0] - 2 * MARGIN)) {
        newline()
        text(line, MARGIN)
      }
  }
  return doc.save()
}
