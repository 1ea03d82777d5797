/**
 * The sweep of recorded S3 removals (src/attachments/removal.ts) looks for the blob rows marked for removal,
 * oldest first, in every tenant, every ten minutes. Without an index that is a scan of every blob of every
 * tenant; this partial index holds only the marked rows, which are few and short-lived.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX attachment_blobs_pending_removal ON attachment_blobs (created_at) WHERE sha256 LIKE 'removing %'`.execute(
    db,
  )
}
