/** Attachments and comments on the wire (DECISIONS, "Attachments and comments"). */
import { Type, type Static } from 'typebox'
import { Person } from '../approvals/schema.ts'
import { Id, named } from '../core/schema.ts'

export const DocumentRef = Type.Object(
  {
    type: Type.Union(
      [
        Type.Literal('request'),
        Type.Literal('purchase_order'),
        Type.Literal('receipt'),
        Type.Literal('bill'),
        Type.Literal('expense_report'),
        Type.Literal('travel_request'),
        Type.Literal('payment_request'),
      ],
      { description: 'The kind of document.' },
    ),
    id: Type.Integer({ examples: [12] }),
  },
  {
    description: 'The document it belongs to: its type and id.',
    examples: [{ type: 'purchase_order', id: 42 }],
  },
)

export const Attachment = named(
  'Attachment',
  Type.Object({
    id: Type.Integer({ examples: [5] }),
    document: DocumentRef,
    filename: Type.String({
      description: 'The base name only, without control or bidi characters.',
      examples: ['quote.pdf'],
    }),
    content_type: Type.String({ description: 'Detected from the content.', examples: ['application/pdf'] }),
    size: Type.Integer({ description: 'In bytes.', examples: [48213] }),
    sha256: Type.String({
      pattern: '^[0-9a-f]{64}$',
      description: 'SHA-256 of the content, in lowercase hex; the download’s ETag.',
      examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    }),
    scan_status: Type.Union([Type.Literal('not_scanned'), Type.Literal('clean')], {
      description:
        'clean: the virus scanner (ClamAV) found nothing; not_scanned: the service runs without a scanner. An infected file is refused, never stored.',
      examples: ['clean'],
    }),
    description: Type.String(),
    vendor_visible: Type.Boolean({ description: "Orders only: sent with the order's e-mail.", examples: [false] }),
    uploaded_by: Type.Union([Person, Type.Null()], {
      description: 'Who uploaded it; null when no user did.',
    }),
    created_at: Type.String({ format: 'date-time' }),
  }),
)
export type Attachment = Static<typeof Attachment>

export const AttachmentList = Type.Array(Attachment)

export const CommentSchema = named(
  'Comment',
  Type.Object({
    id: Type.Integer({ examples: [9] }),
    document: DocumentRef,
    author: Type.Union([Person, Type.Null()], { description: 'Who wrote it; null when no user did.' }),
    body: Type.String({
      minLength: 1,
      maxLength: 5000,
      description: 'The comment, as plain text (1–5,000 characters).',
      examples: ['@ada@example.com can you check the quote?'],
    }),
    mentions: Type.Array(Person, { description: 'The users its body mentions (`@` followed by their e-mail).' }),
    created_at: Type.String({ format: 'date-time' }),
  }),
)
export type CommentView = Static<typeof CommentSchema>

export const CommentInput = Type.Object(
  {
    body: Type.String({
      minLength: 1,
      maxLength: 5000,
      description: "Plain text; `@` followed by a user's e-mail mentions them (they get an e-mail).",
      examples: ['@ada@example.com can you check the quote?'],
    }),
  },
  { additionalProperties: false },
)
export type CommentInput = Static<typeof CommentInput>

export const ItemParams = Type.Object({ id: Id })

/** The upload form, for the OpenAPI document only (the route reads and checks the stream itself, upload.ts). */
const uploadFields = {
  file: Type.String({
    format: 'binary',
    description:
      'The file, as one part with a filename (its base name is kept). Its type is detected from the content: ' +
      'PDF, PNG, JPEG, GIF, WebP, TIFF, HEIC, plain text, CSV, DOCX, XLSX, ODT, ODS or EML.',
    examples: ['%PDF-1.7 … (the bytes of quote.pdf)'],
  }),
  description: Type.Optional(Type.String({ maxLength: 1000, description: 'What the file is (plain text).' })),
}
export const UploadForm = named('AttachmentUpload', Type.Object(uploadFields, { additionalProperties: false }))

/** An order's upload form: also `vendor_visible`, to send the file with the order's e-mail. */
export const OrderUploadForm = named(
  'PurchaseOrderAttachmentUpload',
  Type.Object(
    {
      ...uploadFields,
      vendor_visible: Type.Optional(
        Type.Boolean({
          description: "Send it with the order's e-mail to the vendor (default false).",
          examples: [true],
        }),
      ),
    },
    { additionalProperties: false },
  ),
)

declare module '../events/schema.ts' {
  interface EventObjects {
    'attachment.created': Attachment
    'attachment.deleted': Attachment
    'comment.created': CommentView
    'comment.deleted': CommentView
  }
}
