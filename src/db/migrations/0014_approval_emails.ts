/** Approval e-mail (issue #33): a person may turn it off on My account; on for everyone until they do. */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE users ADD COLUMN approval_emails boolean NOT NULL DEFAULT true`.execute(db)
}
