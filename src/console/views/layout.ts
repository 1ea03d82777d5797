/** The console's page frame: skip link, navigation for the signed-in user, the main landmark, sign-out. */
import type { Actor } from '../../access/actor.ts'
import type { PermissionKey } from '../../db/schema.ts'
import { html, type Html } from './html.ts'

/** Who is looking at a page of the signed-in console, and the CSRF token its forms carry. */
export interface Frame {
  actor: Actor
  csrf: string
}

export interface PageOptions {
  title: string
  actor?: Actor | undefined
  csrf?: string | undefined
  /** Which navigation entry is the current page. */
  current?: string
}

/**
 * What the menu may show beyond the tenant-wide permissions: the keys a user holds at any location,
 * `delegatee` while someone's approvals are delegated to them, `candidate` while an approval waits for
 * them or they may become a candidate otherwise (a budget's owner), and `budget_owner` while they own a budget
 * (they read it). Set for each signed-in request (routes.ts).
 */
export type MenuKey = PermissionKey | 'delegatee' | 'candidate' | 'budget_owner'
export const menuKeys = new WeakMap<Actor, ReadonlySet<MenuKey>>()
/** The counts the menu carries beside its entries (by entry key: `approvals` → pending approvals). */
export const menuCounts = new WeakMap<Actor, Readonly<Record<string, number>>>()

/** The menu's groups, in order; an entry names its group. */
export const MENU_GROUPS = ['', 'Buy', 'Pay', 'Reports', 'Set-up'] as const
export type MenuGroup = (typeof MENU_GROUPS)[number]

export interface MenuEntry {
  group: MenuGroup
  href: string
  label: string
  /** Which page is current (a page's `current`). */
  key: string
  /** Shows only to someone who holds one of these tenant-wide. */
  needs?: readonly PermissionKey[]
  /** Shows only to someone who holds one of these at some location (or is a delegatee, a candidate). */
  anywhere?: readonly MenuKey[]
}

/** Who is or may be an approval candidate (DECISIONS, "Daily use of the console"). */
const APPROVERS: readonly MenuKey[] = ['superuser', 'nav_approval', 'accounts_payable', 'delegatee', 'candidate']

/**
 * The menu, one entry a line: adding a page to it is adding a line here (its group, where, what it is called,
 * who may use it).
 */
export const NAV: MenuEntry[] = [
  { group: '', href: '/console/', label: 'Home', key: 'home' },
  { group: '', href: '/console/approvals', label: 'Approvals', key: 'approvals', anywhere: APPROVERS },
  {
    group: 'Buy',
    href: '/console/requests',
    label: 'Requests',
    key: 'requests',
    anywhere: ['superuser', 'nav_request'],
  },
  {
    group: 'Buy',
    href: '/console/orders',
    label: 'Orders',
    key: 'orders',
    anywhere: ['superuser', 'nav_purchase', 'nav_receive', 'accounts_payable'],
  },
  {
    group: 'Buy',
    href: '/console/receiving',
    label: 'Receiving',
    key: 'receiving',
    anywhere: ['superuser', 'nav_receive'],
  },
  { group: 'Buy', href: '/console/vendors', label: 'Vendors', key: 'vendors' },
  {
    group: 'Pay',
    href: '/console/bills',
    label: 'Bills',
    key: 'bills',
    anywhere: ['superuser', 'accounts_payable', 'nav_purchase'],
  },
  {
    group: 'Pay',
    href: '/console/payments',
    label: 'Payments',
    key: 'payments',
    anywhere: ['superuser', 'accounts_payable'],
  },
  {
    group: 'Pay',
    href: '/console/payment-requests',
    label: 'Payment requests',
    key: 'payment-requests',
    anywhere: ['superuser', 'nav_request', 'accounts_payable'],
  },
  {
    group: 'Pay',
    href: '/console/expenses',
    label: 'My expenses',
    key: 'expenses',
    anywhere: ['superuser', 'nav_request', 'accounts_payable'],
  },
  {
    group: 'Pay',
    href: '/console/travel',
    label: 'Travel requests',
    key: 'travel',
    anywhere: ['superuser', 'nav_request', 'accounts_payable'],
  },
  {
    group: 'Reports',
    href: '/console/reports',
    label: 'Reports',
    key: 'reports',
    anywhere: ['superuser', 'nav_report'],
  },
  {
    group: 'Reports',
    href: '/console/budgets',
    label: 'Budgets',
    key: 'budgets',
    anywhere: ['superuser', 'nav_manage', 'nav_report', 'budget_owner'],
  },
  { group: 'Set-up', href: '/console/users', label: 'Users', key: 'users' },
  { group: 'Set-up', href: '/console/locations', label: 'Locations', key: 'locations' },
  {
    group: 'Set-up',
    href: '/console/settings/setup',
    label: 'Set-up',
    key: 'setup',
    needs: ['superuser', 'nav_setting'],
  },
  {
    group: 'Set-up',
    href: '/console/settings/applications',
    label: 'Applications',
    key: 'applications',
    needs: ['superuser', 'nav_setting'],
  },
  { group: 'Set-up', href: '/console/settings/webhooks', label: 'Webhooks', key: 'webhooks', needs: ['superuser'] },
  { group: 'Set-up', href: '/console/settings/sso', label: 'Single sign-on', key: 'sso', needs: ['superuser'] },
  { group: 'Set-up', href: '/console/outbox', label: 'Outbox', key: 'outbox', needs: ['superuser', 'nav_setting'] },
  { group: '', href: '/console/account', label: 'My account', key: 'me' },
]

/** The menu entries `actor` may use. */
export function menuFor(actor: Actor): MenuEntry[] {
  const held = menuKeys.get(actor) ?? actor.permissions
  return NAV.filter(
    (n) =>
      (n.needs === undefined || n.needs.some((p) => actor.permissions.has(p))) &&
      (n.anywhere === undefined || n.anywhere.some((p) => held.has(p))),
  )
}

/** The menu: its groups under their names, a count beside an entry that has one; one button at phone width. */
function menu(actor: Actor, current: string | undefined): Html {
  const entries = menuFor(actor)
  const counts = menuCounts.get(actor) ?? {}
  const link = (n: MenuEntry) => {
    const count = counts[n.key] ?? 0
    return html`<li>
      <a href="${n.href}" ${current === n.key ? html`aria-current="page"` : ''}
        >${n.label}${count > 0 ? html` <span class="count">${count}<span class="visually-hidden"> waiting</span></span>` : ''}</a
      >
    </li>`
  }
  return html`${MENU_GROUPS.map((group) => {
    const mine = entries.filter((n) => n.group === group)
    if (mine.length === 0) return ''
    return group === ''
      ? html`<ul class="menu-top">
          ${mine.map(link)}
        </ul>`
      : html`<div class="menu-group">
          <span class="menu-heading" id="menu-${group.toLowerCase()}">${group}</span>
          <ul aria-labelledby="menu-${group.toLowerCase()}">
            ${mine.map(link)}
          </ul>
        </div>`
  })}`
}

export function page(options: PageOptions, body: Html): string {
  const { actor, csrf } = options
  const nav =
    actor === undefined
      ? ''
      : html`<details class="menu" data-menu>
          <summary>
            Menu${(menuCounts.get(actor)?.approvals ?? 0) > 0 ? html` <span class="count">${menuCounts.get(actor)?.approvals}<span class="visually-hidden"> approvals waiting</span></span>` : ''}
          </summary>
          <nav aria-label="Console">
            ${menu(actor, options.current)}
            <form method="post" action="/console/sign-out" class="sign-out">
              <input type="hidden" name="_csrf" value="${csrf}" />
              <span class="who">${actor.email} · ${actor.domain}</span>
              <button type="submit">Sign out</button>
            </form>
          </nav>
        </details>`
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · Procurement console</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/console.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header><span class="brand">Procurement console</span>${nav}</header>
        <main id="main" tabindex="-1">
          <h1>${options.title}</h1>
          ${body}
        </main>
      </body>
    </html>`.value
}

/**
 * A message box: `status` for news that went well, `warning` for news that needs attention (done, but not as
 * hoped: a matching exception), `alert` for errors (read out by screen readers in every case).
 */
export const notice = (kind: 'status' | 'alert' | 'warning', text: string | Html) =>
  html`<div class="notice ${kind}" role="${kind === 'alert' ? 'alert' : 'status'}">${text}</div>`

/** A form that POSTs with the CSRF token. */
export const postForm = (action: string, csrf: string, inner: Html, attributes = html``) =>
  html`<form method="post" action="${action}" ${attributes}>
    <input type="hidden" name="_csrf" value="${csrf}" />${inner}
  </form>`
