/**
 * An order's notes carry its terms and delivery instructions, and the PDF prints them whole (DECISIONS: the
 * PDF shows the whole notes, wrapped across lines and pages): up to 10,000 characters instead of 4,000.
 * Widening a varchar rewrites nothing (PostgreSQL only changes the catalog).
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE purchase_orders ALTER COLUMN notes TYPE varchar(10000)`.execute(db)
}
