/** Approval and approval-rule shapes on the wire (DECISIONS, "Purchase requests and approvals"). */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { DECIMAL_PATTERN } from '../core/decimal.ts'
import { Id, named } from '../core/schema.ts'

/** A user as requests and approvals show them; `id` is the id of /api/v3/users/{id}/. */
export const Person = named(
  'Person',
  Type.Object({
    id: Type.Integer({ examples: [7] }),
    first_name: Type.String({ examples: ['Ada'] }),
    last_name: Type.String({ examples: ['Lovelace'] }),
    email: Type.String({ examples: ['ada@example.com'] }),
  }),
)
export type Person = Static<typeof Person>

const Nullable = <T extends ReturnType<typeof Type.Object>>(t: T) => Type.Union([t, Type.Null()])

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const
export const ApprovalStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('cancelled')],
  { description: 'pending until decided; cancelled when its request is cancelled.', examples: ['pending'] },
)

export const DOCUMENT_TYPES = [
  'request',
  'purchase_order',
  'bill',
  'expense_report',
  'travel_request',
  'payment_request',
  'payment_run',
] as const
/** The union of document types, with the caller's description (a function, so each use keeps its own). */
const documentTypes = (options: { description: string; examples: string[] }) =>
  Type.Union(
    [
      Type.Literal('request'),
      Type.Literal('purchase_order'),
      Type.Literal('bill'),
      Type.Literal('expense_report'),
      Type.Literal('travel_request'),
      Type.Literal('payment_request'),
      Type.Literal('payment_run'),
    ],
    options,
  )
export const DocumentType = documentTypes({
  description: 'What an approval (or a rule) is for.',
  examples: ['request'],
})
export const ApprovalDocument = named(
  'ApprovalDocument',
  Type.Object({
    type: DocumentType,
    id: Type.Integer({ description: 'The document’s id (a request, a purchase order, a bill, …).', examples: [31] }),
  }),
)

export const Approval = named(
  'Approval',
  Type.Object({
    id: Type.Integer({ examples: [12] }),
    request: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The request’s id (GET /api/v3/requests/{id}/) when the document is a request; else null.',
      examples: [31],
    }),
    document: ApprovalDocument,
    kind: Type.Union(
      [
        Type.Literal('order'),
        Type.Literal('expense'),
        Type.Literal('travel'),
        Type.Literal('bill'),
        Type.Literal('payment'),
      ],
      {
        description:
          'The pending_approvals_count it counts in. order: a request’s or a purchase order’s approval; expense: an ' +
          'expense report’s; travel: a travel request’s; bill: a bill’s; payment: a payment request’s or a payment run’s.',
        examples: ['order'],
      },
    ),
    step: Type.Integer({ minimum: 1, maximum: 10, examples: [1] }),
    status: ApprovalStatus,
    candidates: Type.Array(Person, { description: 'Who may decide it (any one of them, or their delegatee).' }),
    approver: Type.Union([Person, Type.Null()], {
      description: 'Who decided it (the same person as acted_by); null while pending or cancelled.',
    }),
    acted_by: Nullable(Person),
    on_behalf_of: Type.Union([Person, Type.Null()], {
      description: 'The away candidate a delegatee decided for; null when a candidate decided.',
    }),
    comment: Type.String({ examples: ['Within budget.'] }),
    created_at: Type.String({ format: 'date-time' }),
    acted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
)
export type Approval = Static<typeof Approval>

export const ApprovalListQuery = listQuery(['id', 'created_at'], {
  status: Type.Optional(ApprovalStatus),
  approver: Type.Optional(
    Type.Literal('me', {
      description: 'me: the approvals you decide or decided (as a candidate or a delegatee of an away candidate).',
      examples: ['me'],
    }),
  ),
  request: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2147483647, description: 'A request’s id.', examples: [31] }),
  ),
  document_type: Type.Optional(DocumentType),
  document_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: 'A document’s id (with document_type).',
      examples: [42],
    }),
  ),
  updated_since: UpdatedSince,
})
export type ApprovalListQuery = Static<typeof ApprovalListQuery>
/** The same query as the SQL binding sees it: `approver=me` turned into the caller's user id (not on the wire). */
export const ApprovalListSql = listQuery(['id', 'created_at'], {
  status: Type.Optional(ApprovalStatus),
  approver_user: Type.Optional(Type.Integer()),
  request: Type.Optional(Type.Integer()),
  document_type: Type.Optional(DocumentType),
  document_id: Type.Optional(Type.Integer()),
  updated_since: UpdatedSince,
})
export type ApprovalListSql = Static<typeof ApprovalListSql>

export const Decision = named(
  'Decision',
  Type.Object(
    { comment: Type.Optional(Type.String({ maxLength: 2000, examples: ['Within budget.'] })) },
    { additionalProperties: false },
  ),
)
export const Rejection = named(
  'Rejection',
  Type.Object(
    {
      comment: Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S', examples: ['Over the quarter’s budget.'] }),
    },
    { additionalProperties: false },
  ),
)
export type Decision = Static<typeof Decision>

export const Money = (description: string, example: string) =>
  Type.String({ pattern: DECIMAL_PATTERN, maxLength: 21, description, examples: [example] })

export const ApprovalRule = named(
  'ApprovalRule',
  Type.Object({
    id: Type.Integer({ examples: [3] }),
    location: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The location it applies to; null: every location.',
      examples: [2],
    }),
    min_total: Type.String({ description: 'Applies to requests whose total is at least this.', examples: ['1000'] }),
    step: Type.Integer({ minimum: 1, maximum: 10, examples: [1] }),
    approvers: Type.Array(Type.Integer(), { description: 'User ids (/api/v3/users/{id}/).', examples: [[7, 9]] }),
    active: Type.Boolean(),
    document: DocumentType,
  }),
)
export type ApprovalRule = Static<typeof ApprovalRule>

export const ApprovalRuleInput = named(
  'ApprovalRuleInput',
  Type.Object(
    {
      location: Type.Optional(
        Type.Union([Id, Type.Null()], { description: 'A location id; null or omitted: every location.' }),
      ),
      min_total: Type.Optional(Money('Decimal string, default "0".', '1000')),
      step: Type.Integer({ minimum: 1, maximum: 10, examples: [1] }),
      approvers: Type.Array(Id, { minItems: 1, maxItems: 20, examples: [[7, 9]] }),
      active: Type.Optional(Type.Boolean({ default: true })),
      document: Type.Optional(
        documentTypes({
          description:
            'What the rule routes: "request" (default), "purchase_order", "bill", "expense_report", ' +
            '"travel_request", "payment_request" or "payment_run".',
          examples: ['purchase_order'],
        }),
      ),
      id: Type.Optional(Type.Integer({ description: 'Read-only; ignored.' })),
    },
    { additionalProperties: false },
  ),
)
export type ApprovalRuleInput = Static<typeof ApprovalRuleInput>
export const ApprovalRuleListQuery = listQuery(['id', 'step'], {
  location: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  active: Type.Optional(Type.Boolean()),
  document: Type.Optional(DocumentType),
  updated_since: UpdatedSince,
})
export type ApprovalRuleListQuery = Static<typeof ApprovalRuleListQuery>
export const IdParams = Type.Object({ id: Id })

/** What an approval chain is opened for: the document, where it is and who submitted it. */
export interface DocumentRef {
  type: (typeof DOCUMENT_TYPES)[number]
  id: number
  locationId: number
  submitterId: number
}

declare module '../events/schema.ts' {
  interface EventObjects {
    'approval.created': Approval
    'approval.approved': Approval
    'approval.rejected': Approval
  }
}
