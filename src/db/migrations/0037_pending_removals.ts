/**
 * The sweep of S3 objects to remove (src/attachments/removal.ts) looks, in every tenant, every ten minutes, for
 * blob rows marked for removal and for upload intents left behind. Without an index that is a scan of every
 * blob of every tenant; this partial index holds only the marked rows, which are few and short-lived.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX attachment_blobs_marked ON attachment_blobs (created_at)
    WHERE sha256 LIKE 'removing %' OR sha256 LIKE 'uploading %'
  `.execute(db)
}
