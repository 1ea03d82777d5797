/**
 * Building a payment run's ISO 20022 file (src/payment-runs/pain001.ts) for 1,000 items, beside a floor that
 * serialises the same items with the same XML library (xmlbuilder2) and nothing else: no length fitting, no
 * character cleaning, no control sums, no choice of elements. The file must build at ≥ 0.5× the floor's rate.
 * In-process, no database: the file service's reads are one query per run and are measured by the API tests.
 * Run: npm run bench -- payments   (BENCH_ITEMS=1000  BENCH_RUNS=5  BENCH_SECONDS=2)
 */
import { create } from 'xmlbuilder2'
import { buildPain001, PAIN_001_NAMESPACE, type FileItem, type PaymentFile } from '../src/payment-runs/pain001.ts'
import { fmt, median, verdict } from './lib/report.ts'
import { envNumber } from './lib/settings.ts'

const ITEMS = envNumber('BENCH_ITEMS', 1000)
const RUNS = envNumber('BENCH_RUNS', 5)
const SECONDS = envNumber('BENCH_SECONDS', 2)

const IBANS = ['DE89370400440532013000', 'GB29NWBK60161331926819', 'FR1420041010050500013M02606', 'NL91ABNA0417164300']
const items: FileItem[] = Array.from({ length: ITEMS }, (_, i) => ({
  endToEndId: `INV-${String(i + 1).padStart(6, '0')}`,
  amount: `${(i % 997) + 1}.${String(i % 100).padStart(2, '0')}`,
  creditor: {
    name: `Vendor ${i} & Sons GmbH`,
    iban: IBANS[i % IBANS.length]!,
    accountNumber: null,
    bic: 'COBADEFFXXX',
    routingNumber: null,
    country: 'DE',
  },
  remittance: `Invoice INV-${i + 1}`,
}))
const file: PaymentFile = {
  messageId: 'RUN-000001',
  createdAt: new Date('2026-11-28T10:00:00Z'),
  executionDate: '2026-12-01',
  currency: 'EUR',
  debtor: { name: 'Example Corp', iban: 'DE02120300000000202051', bic: 'BYLADEM1001' },
  items,
}

/** The floor: the same elements and values, written straight through the library. */
function floor(): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(PAIN_001_NAMESPACE, 'Document')
  const info = root.ele('CstmrCdtTrfInitn').ele('PmtInf')
  for (const item of items) {
    const tx = info.ele('CdtTrfTxInf')
    tx.ele('PmtId').ele('EndToEndId').txt(item.endToEndId)
    tx.ele('Amt').ele('InstdAmt', { Ccy: 'EUR' }).txt(item.amount)
    tx.ele('CdtrAgt').ele('FinInstnId').ele('BIC').txt(item.creditor.bic!)
    tx.ele('Cdtr').ele('Nm').txt(item.creditor.name)
    tx.ele('CdtrAcct').ele('Id').ele('IBAN').txt(item.creditor.iban!)
    tx.ele('RmtInf').ele('Ustrd').txt(item.remittance)
  }
  return root.end({ prettyPrint: true })
}

/** Files built per second, over `SECONDS`. */
function rate(build: () => string): number {
  for (let i = 0; i < 3; i++) build() // warm up
  const until = performance.now() + SECONDS * 1000
  let n = 0
  const started = performance.now()
  while (performance.now() < until) {
    build()
    n++
  }
  return n / ((performance.now() - started) / 1000)
}

const service: number[] = []
const floors: number[] = []
for (let run = 0; run < RUNS; run++) {
  service.push(rate(() => buildPain001(file)))
  floors.push(rate(floor))
}
const ours = median(service)
const base = median(floors)
console.log(`${ITEMS}-item pain.001 file, median of ${RUNS} runs of ${SECONDS} s`)
console.log(`  service (buildPain001): ${fmt(ours, 1)} files/s (${fmt(1000 / ours, 1)} ms each)`)
console.log(`  floor (same items, same library): ${fmt(base, 1)} files/s (${fmt(1000 / base, 1)} ms each)`)
console.log(`  ratio: ${fmt(ours / base, 2)}× the floor (needs ≥ 0.5×)`)
verdict('building the file at ≥ 0.5× the floor', ours / base >= 0.5)
