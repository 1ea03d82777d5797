/**
 * The payment file (DECISIONS): `GET /api/v3/payment-runs/{id}/file` is a `pain.001.001.03` document that
 * validates against the official ISO 20022 schema (test/fixtures/iso20022/, checked with `xmllint --schema`),
 * for runs of 1 and 1,000 items: one PmtInf (debtor from the company account, ReqdExctnDt), one CdtTrfTxInf
 * per item (EndToEndId the document number, creditor from the vendor's bank account, Ustrd the invoice number),
 * MsgId the run number, exact control sums. Only approved or confirmed runs have one; a vendor account changed
 * since is refused until verified again.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, beforeEach, describe, test } from 'node:test'
import { sql } from 'kysely'
import { useTestApp } from './helpers/app.ts'
import { newVendor } from './helpers/orders.ts'
import { BASE_DOMAIN } from './helpers/security.ts'
import {
  approvedBill,
  billItem,
  post,
  putAccount,
  run,
  runAction,
  setUpPayments,
  type PaymentSetup,
} from './payments-fixture.ts'
import { buildPain001, controlSum, fit } from '../src/payment-runs/pain001.ts'

const XSD = new URL('./fixtures/iso20022/pain.001.001.03.xsd', import.meta.url).pathname
const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
const dir = mkdtempSync(join(tmpdir(), 'pain001-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let s: PaymentSetup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpPayments(ctx)
})

/** Validates the XML against the XSD with xmllint; throws with xmllint's words when it does not. */
function validate(xml: string, name = 'file.xml') {
  const path = join(dir, name)
  writeFileSync(path, xml)
  try {
    execFileSync('xmllint', ['--noout', '--schema', XSD, path], { stdio: 'pipe' })
  } catch (error) {
    const e = error as { stderr?: Buffer }
    assert.fail(`not valid against pain.001.001.03.xsd:\n${e.stderr?.toString() ?? String(error)}`)
  }
}
const all = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([^<]*)</${tag}>`, 'g'))].map((m) => m[1]!)
const one = (xml: string, tag: string) => all(xml, tag)[0]

async function fileOf(id: number) {
  const r = await s.clerk.api({ method: 'GET', url: `/api/v3/payment-runs/${id}/file` })
  assert.equal(r.statusCode, 200, r.body)
  return r.body
}

describe('the pain.001.001.03 file', () => {
  test('the schema itself rejects a broken file (the check can fail)', () => {
    assert.throws(() =>
      validate('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><Nope/></Document>', 'bad.xml'),
    )
  })

  test('a run of 1 item: valid, every element mapped from the run, vendor and company account', async () => {
    const vendor = await newVendor(s.admin, 'Smith & Sons <GmbH>', [])
    await putAccount(s.clerk.api, vendor, {
      account_holder: 'Smith & Sons GmbH',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
    })
    await post(s.clerk2.api, `/api/v3/vendors/${vendor}/bank-account/verify/`)
    const bill = await approvedBill(s, vendor, '1234.5')
    const r = await run(s, [billItem(bill.id)])
    await runAction(s.clerk.api, r.id, 'submit')
    const xml = await fileOf(r.id)
    validate(xml, 'one.xml')
    assert.equal(one(xml, 'MsgId'), r.number)
    assert.equal(one(xml, 'PmtInfId'), r.number)
    assert.deepEqual(all(xml, 'NbOfTxs'), ['1', '1'])
    assert.deepEqual(all(xml, 'CtrlSum'), ['1234.50', '1234.50'])
    assert.equal(one(xml, 'ReqdExctnDt'), '2026-12-01')
    assert.match(xml, /<Dbtr>\s*<Nm>Example Corp<\/Nm>/)
    assert.match(xml, /<DbtrAcct>\s*<Id>\s*<IBAN>DE02120300000000202051<\/IBAN>/)
    assert.match(xml, /<DbtrAgt>\s*<FinInstnId>\s*<BIC>BYLADEM1001<\/BIC>/)
    assert.equal(one(xml, 'EndToEndId'), bill.number)
    assert.match(xml, new RegExp(`<InstdAmt Ccy="${s.currency}">1234.50</InstdAmt>`))
    assert.match(xml, /<Cdtr>\s*<Nm>Smith &amp; Sons GmbH<\/Nm>/)
    assert.match(xml, /<CdtrAcct>\s*<Id>\s*<IBAN>DE89370400440532013000<\/IBAN>/)
    assert.match(xml, /<CdtrAgt>\s*<FinInstnId>\s*<BIC>COBADEFFXXX<\/BIC>/)
    assert.equal(one(xml, 'Ustrd'), bill.number)
    // Confirmed runs keep their file.
    await runAction(s.clerk.api, r.id, 'confirm')
    validate(await fileOf(r.id), 'confirmed.xml')
  })

  test('a run of 1,000 items: valid, 1,000 transactions, control sums exact', async () => {
    const vendor = await s.payee('Bulk Supplier')
    const currency = await sql<{ id: number }>`select currency_id as id from locations
      where tenant_id = ${s.tenant.tenantId} and id = ${s.A}`.execute(ctx.database.db)
    // The bills are written straight to the database (1,000 through HTTP would take minutes); the run and its
    // file go through the API. Amounts 0.01 … 10.00 plus a cent pattern that a float sum would get wrong.
    const ids = await sql<{ id: number }>`insert into bills (tenant_id, number, number_key, vendor_id, location_id,
        currency_id, status, subtotal, tax, total, created_by)
      select ${s.tenant.tenantId}, 'BULK-' || g, 'bulk' || g, ${vendor}, ${s.A}, ${currency.rows[0]!.id}, 'approved',
        (g * 0.01 + 0.1)::numeric(40, 2), 0, (g * 0.01 + 0.1)::numeric(40, 2), ${s.clerk.userId}
      from generate_series(1, 1000) g returning id`.execute(ctx.database.db)
    const items = ids.rows.map((r) => billItem(r.id))
    const r = await run(s, items)
    assert.equal(r.items.length, 1000)
    const expected = controlSum(ids.rows.map((_, i) => ((i + 1) * 0.01 + 0.1).toFixed(2)))
    assert.equal(r.total, expected)
    await runAction(s.clerk.api, r.id, 'submit')
    const xml = await fileOf(r.id)
    validate(xml, 'thousand.xml')
    assert.deepEqual(all(xml, 'NbOfTxs'), ['1000', '1000'])
    assert.deepEqual(all(xml, 'CtrlSum'), [expected, expected])
    assert.equal(all(xml, 'EndToEndId').length, 1000)
    assert.equal(controlSum(all(xml, 'InstdAmt')), expected)
    assert.equal(expected, '5105.00')
    const confirmed = await runAction(s.clerk.api, r.id, 'confirm')
    assert.equal(confirmed.status, 'confirmed')
    const paid = await sql<{ n: number }>`select count(*)::int as n from bills where tenant_id = ${s.tenant.tenantId}
      and number like 'BULK-%' and status = 'paid' and payment_reference = ${r.number}`.execute(ctx.database.db)
    assert.equal(paid.rows[0]!.n, 1000)
  })

  test('a vendor account changed after the run was approved: no file until it is verified again', async () => {
    const vendor = await s.payee()
    const r = await run(s, [billItem((await approvedBill(s, vendor, '10')).id)])
    await runAction(s.clerk.api, r.id, 'submit')
    await putAccount(s.clerk2.api, vendor, { account_holder: 'Fraudster', iban: 'GB29NWBK60161331926819' })
    const refused = await s.clerk.api({ method: 'GET', url: `/api/v3/payment-runs/${r.id}/file` })
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, /not verified/)
    await post(s.clerk.api, `/api/v3/vendors/${vendor}/bank-account/verify/`)
    validate(await fileOf(r.id), 'reverified.xml')
    assert.equal((await s.requester.api({ method: 'GET', url: `/api/v3/payment-runs/${r.id}/file` })).statusCode, 403)
  })

  test('an account number with a routing number, long and odd texts: still valid', () => {
    const xml = buildPain001({
      messageId: 'RUN-000001',
      createdAt: new Date('2026-11-28T10:00:00Z'),
      executionDate: '2026-12-01',
      currency: 'USD',
      debtor: { name: 'Example Corp', iban: 'DE02120300000000202051', bic: 'BYLADEM1001' },
      items: [
        {
          endToEndId: `INV-${'9'.repeat(60)}`,
          amount: '0.01',
          creditor: {
            name: `Ünïcødé 😀 ${'x'.repeat(200)}`,
            iban: null,
            accountNumber: '000123456789',
            bic: null,
            routingNumber: '021000021',
            country: 'US',
          },
          remittance: 'a\u0001b\uD800c & <d>',
        },
        {
          endToEndId: 'PAY-000001',
          amount: '9999999999999999.99',
          creditor: {
            name: ' ',
            iban: 'NL91ABNA0417164300',
            accountNumber: null,
            bic: null,
            routingNumber: null,
            country: '',
          },
          remittance: '',
        },
      ],
    })
    validate(xml, 'odd.xml')
    assert.equal(one(xml, 'CtrlSum'), '10000000000000000.00')
    assert.equal(fit('a\u0001b', 35), 'ab')
    assert.equal(Array.from(fit('😀'.repeat(50), 35)).length, 35)
  })
})
