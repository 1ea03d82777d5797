/**
 * The attachment and comment tables (migration 0033), added to the database's table types by declaration
 * merging, so this module states its own rows and src/db/schema.ts need not change.
 */
import type { ColumnType, Generated } from 'kysely'
import type { AttachableType } from './documents.ts'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type BigCount = ColumnType<number, number, number>

export interface AttachmentBlobTable {
  id: Generated<number>
  tenant_id: number
  sha256: string
  size: BigCount
  store: 'database' | 's3'
  s3_key: string | null
  created_at: Timestamp
}

export interface AttachmentBlobPartTable {
  tenant_id: number
  blob_id: number
  id: number
  data: Uint8Array
}

export interface AttachmentTable {
  id: Generated<number>
  tenant_id: number
  document_type: AttachableType
  document_id: number
  blob_id: number
  sha256: string
  filename: string
  content_type: string
  size: BigCount
  scan_status: 'not_scanned' | 'clean'
  description: Generated<string>
  vendor_visible: Generated<boolean>
  uploaded_by: number | null
  created_at: Timestamp
}

export interface CommentTable {
  id: Generated<number>
  tenant_id: number
  document_type: AttachableType
  document_id: number
  author_id: number | null
  body: string
  created_at: Timestamp
}

export interface CommentMentionTable {
  tenant_id: number
  comment_id: number
  user_id: number
}

declare module '../db/schema.ts' {
  interface DB {
    attachment_blobs: AttachmentBlobTable
    attachment_blob_parts: AttachmentBlobPartTable
    attachments: AttachmentTable
    comments: CommentTable
    comment_mentions: CommentMentionTable
  }
}
