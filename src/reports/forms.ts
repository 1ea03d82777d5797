/**
 * The CSV and XLSX forms of a report: the same rows flattened into the definition's columns. CSV through the
 * one CSV writer (http/list.ts) with its formula rule — text that a spreadsheet would evaluate gets a `'`;
 * amounts, negative ones included, are numbers and never prefixed. XLSX through write-excel-file: text cells
 * as text, counts and amounts as typed number cells (amounts formatted with 2 decimals, hours with 1).
 */
import type { SheetData } from 'write-excel-file/node'
import { toCsv } from '../http/list.ts'
import type { Column, ReportDefinition, Row } from './definitions.ts'

const NUMBER = /^-?\d+(\.\d+)?$/

/** One row's cells by column header. */
const flat = (columns: Column[], row: Row) => Object.fromEntries(columns.map((c) => [c.header, c.value(row)]))

export function reportCsv(report: ReportDefinition, rows: Row[]): string {
  const numeric = new Set(report.columns.filter((c) => c.kind !== 'text').map((c) => c.header))
  const flattened = rows.map((row) => flat(report.columns, row))
  // Only a column of true numbers skips the formula rule (its values come from SQL numerics, so always).
  const numbers = [...numeric].filter((key) => flattened.every((r) => r[key] === null || NUMBER.test(String(r[key]))))
  return toCsv(
    flattened,
    report.columns.map((c) => c.header),
    new Set(numbers),
  )
}

const FORMATS: Record<Exclude<Column['kind'], 'text'>, string> = {
  integer: '0',
  amount: '#,##0.00',
  hours: '0.0',
}

export async function reportXlsx(report: ReportDefinition, rows: Row[]): Promise<Buffer> {
  const header = report.columns.map((c) => ({ value: c.header, fontWeight: 'bold' as const }))
  const body = rows.map((row) =>
    report.columns.map((c) => {
      const value = c.value(row)
      if (value === null) return null
      if (c.kind === 'text' && typeof value !== 'number') return { value: String(value), type: String }
      return { value: Number(value), type: Number, format: c.kind === 'text' ? '0' : FORMATS[c.kind] }
    }),
  )
  const data: SheetData = [header, ...body]
  // The XLSX writer (and its zip library) is loaded on the first workbook, not with the server.
  const { default: writeXlsxFile } = await import('write-excel-file/node')
  const result = writeXlsxFile(data, {
    sheet: report.title,
    columns: report.columns.map((c) => ({ width: Math.max(12, c.header.length + 2) })),
  })
  return result.toBuffer()
}
