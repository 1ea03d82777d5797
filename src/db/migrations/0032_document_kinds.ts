/**
 * The approval engine's documents widen (wave 5, DECISIONS "Expense reports and travel requests" and "Payment
 * requests and payment runs"): rules (`approval_rules.document`) and approvals (`request_approvals.document_type`)
 * may now name an expense report, a travel request, a payment request or a payment run, as well as a request,
 * a purchase order and a bill. The checks were made without a name (migration 0013), so they are found by the
 * column they check and replaced by named ones.
 */
import { sql, type Kysely } from 'kysely'

const DOCUMENTS = [
  'request',
  'purchase_order',
  'bill',
  'expense_report',
  'travel_request',
  'payment_request',
  'payment_run',
]

export async function up(db: Kysely<unknown>): Promise<void> {
  const allowed = DOCUMENTS.map((d) => `'${d}'`).join(', ')
  await sql
    .raw(
      `DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT con.conname, cls.relname FROM pg_constraint con
      JOIN pg_class cls ON cls.oid = con.conrelid
      JOIN pg_namespace ns ON ns.oid = cls.relnamespace AND ns.nspname = current_schema()
      WHERE con.contype = 'c'
        AND ((cls.relname = 'approval_rules' AND pg_get_constraintdef(con.oid) LIKE '%document%')
          OR (cls.relname = 'request_approvals' AND pg_get_constraintdef(con.oid) LIKE '%document_type%'))
  LOOP
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', c.relname, c.conname);
  END LOOP;
END $$;
ALTER TABLE approval_rules ADD CONSTRAINT approval_rules_document_known CHECK (document IN (${allowed}));
ALTER TABLE request_approvals ADD CONSTRAINT request_approvals_document_known CHECK (document_type IN (${allowed}));`,
    )
    .execute(db)
}
