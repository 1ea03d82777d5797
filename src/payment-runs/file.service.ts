/**
 * `GET /api/v3/payment-runs/{id}/file` (DECISIONS): the run as a `pain.001.001.03` file (pain001.ts), for an
 * approved or confirmed run, to holders of accounts_payable. Every creditor account is read now and must still
 * be `verified` (a change since the run was made is refused with a 409 naming the item, until someone verifies
 * it again): a file never pays an account nobody has checked.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { vendorAccountsOf } from '../bank-accounts/vendor.service.ts'
import { conflict } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { itemName } from './items.service.ts'
import type { FileItem } from './pain001.ts'
import * as repo from './repository.ts'
import { requireMaker } from './service.ts'
import { runView, visibleRun } from './view.service.ts'

export async function runFile(db: Kysely<DB>, actor: Actor, id: number): Promise<{ number: string; xml: string }> {
  await requireMaker(db, actor)
  const row = await visibleRun(db, actor, id)
  if (row.status !== 'approved' && row.status !== 'confirmed')
    throw conflict(
      `Payment run ${row.number} is ${row.status === 'pending_approval' ? 'pending' : row.status}; its file is ` +
        'there once the run is approved (and stays for a confirmed run).',
    )
  const run = await runView(db, actor.tenantId, id)
  const debtor = (await repo.companyAccount(db, actor.tenantId, row.bank_account_id))!
  const accounts = await vendorAccountsOf(
    db,
    actor.tenantId,
    run.items.map((i) => i.vendor.id),
  )
  const unverified = run.items.flatMap((item, index) =>
    accounts.get(item.vendor.id)?.status === 'verified'
      ? []
      : [`${itemName(index, item.document.type, item.document.number)} (vendor ${item.vendor.name})`],
  )
  if (unverified.length > 0)
    throw conflict(
      `The bank account of the vendor of ${unverified.join(', ')} changed after the run was made and is not ` +
        'verified; someone other than who changed it must verify it before the file can be built.',
    )
  const invoices = await repo.itemInvoices(db, actor.tenantId, id)
  const items: FileItem[] = run.items.map((item, index) => {
    const account = accounts.get(item.vendor.id)!
    return {
      endToEndId: item.document.number,
      amount: item.amount,
      creditor: {
        name: account.account_holder,
        iban: account.iban,
        accountNumber: account.account_number,
        bic: account.bic,
        routingNumber: account.routing_number,
        country: account.country,
      },
      remittance: invoices[index] || item.reference || item.document.number,
    }
  })
  // The XML builder (xmlbuilder2 and its DOM, about 0.6 MB of code) is loaded on the first file, not with the server.
  const { buildPain001 } = await import('./pain001.ts')
  const xml = buildPain001({
    messageId: run.number,
    createdAt: new Date(),
    executionDate: run.execution_date,
    currency: run.currency,
    debtor: { name: debtor.account_holder, iban: debtor.iban, bic: debtor.bic },
    items,
  })
  return { number: run.number, xml }
}
