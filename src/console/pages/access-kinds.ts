/**
 * Set-up pages for roles (a name and permissions as checkboxes with plain names) and approval rules (location,
 * minimum total, step, approvers, and the document it approves — every document the approval engine routes),
 * described for pages/setup.ts: through the services the API uses, so the same rules hold (nobody hands out a permission they lack; approvers must exist).
 */
import { listRules, createRule, replaceRule } from '../../approvals/rules.service.ts'
import { ApprovalRuleInput, type DOCUMENT_TYPES } from '../../approvals/schema.ts'
import { permissionName } from '../../core/permission-names.ts'
import { PERMISSION_KEYS } from '../../db/schema.ts'
import { listLocations } from '../../locations/service.ts'
import { listRoles } from '../../lookups/service.ts'
import { createRole, replaceRole } from '../../roles/service.ts'
import { RoleInput } from '../../roles/schema.ts'
import { listUsers } from '../../users/service.ts'
import { activeText } from '../views/setup.ts'
import { allRows } from './forms.ts'
import { activeField, isOn, numberOr, text, ticked, str, type Kind } from './setup-kind.ts'

/** What each permission lets a person do, after its plain name. */
const PERMISSION_HINTS: Record<string, string> = {
  superuser: 'everything, everywhere',
  accounts_payable: 'bills and payments',
  nav_request: 'make purchase requests',
  nav_approval: 'approve requests',
  nav_purchase: 'vendors and purchase orders',
  nav_receive: 'receive deliveries',
  nav_manage: 'manage requests of others',
  nav_setting: 'users, set-up and applications',
  nav_report: 'reports',
}
const ROLE_TYPES = ['User', 'Approver', 'Purchaser', 'Receiver', 'Administrator', 'EKA', 'Accounting', 'Superuser']
  .concat(['Accounts Payable', 'FNG Approver', 'FNG Controller'])
  .map((label, value) => ({ value: String(value), label }))

const roles: Kind = {
  title: 'Roles',
  singular: 'role',
  intro:
    'What people may do: a person has a role, and may hold other roles at some locations (on their page under Users). You can hand out only permissions you hold.',
  headings: ['Permissions', 'Type'],
  cells: (r) => [
    (r.permissions as string[]).map(permissionName).join(', ') || 'None',
    ROLE_TYPES[Number(r.type)]?.label ?? str(r.type),
  ],
  fields: async () => [
    { kind: 'text', name: 'name', label: 'Name', required: true, maxlength: 150 },
    {
      kind: 'checkboxes',
      name: 'permissions',
      label: 'Permissions',
      options: PERMISSION_KEYS.map((key) => ({
        value: key,
        label: `${permissionName(key)} — ${PERMISSION_HINTS[key] ?? key}`,
      })),
    },
    { kind: 'select', name: 'type', label: 'Type', hint: 'How other systems classify it.', options: ROLE_TYPES },
  ],
  schema: RoleInput,
  body: (v) => ({ name: text(v.name), type: numberOr(v.type || '0'), permissions: ticked(v, 'permissions') }),
  values: (r) => ({
    name: r.name,
    type: str(r.type),
    ...Object.fromEntries((r.permissions as string[]).map((key) => [`permissions.${key}`, 'on'])),
  }),
  rows: async (db, actor) => allRows((q) => listRoles(db, actor, q)),
  create: (db, actor, body) => createRole(db, actor, body),
  replace: (db, actor, id, body) => replaceRole(db, actor, id, body),
}

/** The documents a rule governs, as people call them (the API's `document`). */
const DOCUMENTS = [
  { value: 'request', label: 'Request' },
  { value: 'purchase_order', label: 'Purchase order' },
  { value: 'bill', label: 'Bill' },
  { value: 'expense_report', label: 'Expense report' },
  { value: 'travel_request', label: 'Travel request' },
  { value: 'payment_request', label: 'Payment request' },
  { value: 'payment_run', label: 'Payment run' },
] satisfies { value: (typeof DOCUMENT_TYPES)[number]; label: string }[]
const documentName = (value: unknown) => DOCUMENTS.find((d) => d.value === value)?.label ?? str(value)

const rules: Kind = {
  title: 'Approval rules',
  singular: 'rule',
  intro:
    'Who approves a submitted document: the rules of its kind and location (or of every location) whose minimum total it reaches, step by step; any one approver of a step decides it (never the one who submitted it).',
  headings: ['Document', 'Minimum total', 'Approvers', 'Status'],
  cells: (r) => [documentName(r.document), str(r.min_total), str(r.approverNames), activeText(r.active === true)],
  fields: async (db, actor) => [
    {
      kind: 'select',
      name: 'document',
      label: 'Document',
      hint: 'What the rule approves: requests, purchase orders, bills, expense reports, travel requests, payment requests or payment runs.',
      options: DOCUMENTS,
    },
    {
      kind: 'select',
      name: 'location',
      label: 'Location',
      empty: 'Every location',
      options: (await allRows((q) => listLocations(db, actor, q))).map((l) => ({ value: String(l.id), label: l.name })),
    },
    {
      kind: 'text',
      name: 'min_total',
      label: 'Minimum total',
      hint: 'Documents whose total, in the base currency, is at least this, e.g. 1000.',
    },
    {
      kind: 'select',
      name: 'step',
      label: 'Step',
      options: Array.from({ length: 10 }, (_, i) => ({ value: String(i + 1), label: String(i + 1) })),
    },
    {
      kind: 'checkboxes',
      name: 'approvers',
      label: 'Approvers',
      hint: 'Only those who hold Approval at the request’s location are asked.',
      options: (await allRows((q) => listUsers(db, actor, { ...q, order_by: 'lastName', is_active: true }))).map(
        (u) => ({
          value: String(u.id),
          label: `${u.firstName} ${u.lastName} (${u.email})`.trim(),
        }),
      ),
    },
    activeField,
  ],
  schema: ApprovalRuleInput,
  body: (v) => ({
    document: text(v.document) || 'request',
    location: text(v.location) === '' ? null : numberOr(v.location),
    min_total: text(v.min_total) || '0',
    step: numberOr(v.step || '1'),
    approvers: ticked(v, 'approvers').map(numberOr),
    active: isOn(v),
  }),
  values: (r) => ({
    document: str(r.document),
    location: r.location === null ? '' : str(r.location),
    min_total: str(r.min_total),
    step: str(r.step),
    active: r.active === true ? 'on' : '',
    ...Object.fromEntries((r.approvers as number[]).map((id) => [`approvers.${id}`, 'on'])),
  }),
  rows: async (db, actor) => {
    const [all, locations, users] = await Promise.all([
      allRows((q) => listRules(db, actor, { ...q, order_by: 'step' })),
      allRows((q) => listLocations(db, actor, q)),
      allRows((q) => listUsers(db, actor, { ...q, order_by: 'lastName' })),
    ])
    const place = new Map(locations.map((l) => [l.id, l.name]))
    const person = new Map(users.map((u) => [u.id, `${u.firstName} ${u.lastName}`.trim() || u.email]))
    return all.map((r) => ({
      ...r,
      name: `Step ${r.step} · ${r.location === null ? 'every location' : (place.get(r.location) ?? `location ${r.location}`)}`,
      approverNames: r.approvers.map((id) => person.get(id) ?? `user ${id}`).join(', '),
    }))
  },
  create: (db, actor, body) => createRule(db, actor, body),
  replace: (db, actor, id, body) => replaceRule(db, actor, id, body),
}

export const ACCESS_KINDS: Record<string, Kind> = { roles, 'approval-rules': rules }
