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
 * What the menu may show beyond the tenant-wide permissions: the keys a user holds at any location, and
 * `delegatee` while someone's approvals are delegated to them. Set for each signed-in request (routes.ts).
 */
export type MenuKey = PermissionKey | 'delegatee'
export const menuKeys = new WeakMap<Actor, ReadonlySet<MenuKey>>()

/**
 * The menu; an entry with `needs` shows only to someone who holds one of those permissions tenant-wide, and
 * one with `anywhere` to someone who holds one of those at some location (or is a delegatee).
 */
const NAV: readonly {
  href: string
  label: string
  key: string
  needs?: readonly PermissionKey[]
  anywhere?: readonly MenuKey[]
}[] = [
  { href: '/console/account', label: 'My account', key: 'me' },
  { href: '/console/requests', label: 'Requests', key: 'requests', anywhere: ['superuser', 'nav_request'] },
  {
    href: '/console/approvals',
    label: 'Approvals',
    key: 'approvals',
    anywhere: ['superuser', 'nav_approval', 'delegatee'],
  },
  {
    href: '/console/orders',
    label: 'Orders',
    key: 'orders',
    anywhere: ['superuser', 'nav_purchase', 'nav_receive', 'accounts_payable'],
  },
  { href: '/console/receiving', label: 'Receiving', key: 'receiving', anywhere: ['superuser', 'nav_receive'] },
  {
    href: '/console/bills',
    label: 'Bills',
    key: 'bills',
    anywhere: ['superuser', 'accounts_payable', 'nav_purchase'],
  },
  { href: '/console/users', label: 'Users', key: 'users' },
  { href: '/console/locations', label: 'Locations', key: 'locations' },
  { href: '/console/vendors', label: 'Vendors', key: 'vendors' },
  {
    href: '/console/settings/applications',
    label: 'Applications',
    key: 'applications',
    needs: ['superuser', 'nav_setting'],
  },
  {
    href: '/console/settings/webhooks',
    label: 'Webhooks',
    key: 'webhooks',
    needs: ['superuser'],
  },
  { href: '/console/settings/sso', label: 'Single sign-on', key: 'sso', needs: ['superuser'] },
  { href: '/console/settings/setup', label: 'Set-up', key: 'setup', needs: ['superuser', 'nav_setting'] },
  { href: '/console/outbox', label: 'Outbox', key: 'outbox', needs: ['superuser', 'nav_setting'] },
]

/** The menu entries `actor` may use. */
function menuFor(actor: Actor) {
  const held = menuKeys.get(actor) ?? actor.permissions
  return NAV.filter(
    (n) =>
      (n.needs === undefined || n.needs.some((p) => actor.permissions.has(p))) &&
      (n.anywhere === undefined || n.anywhere.some((p) => held.has(p))),
  )
}

export function page(options: PageOptions, body: Html): string {
  const { actor, csrf } = options
  const nav =
    actor === undefined
      ? ''
      : html`<nav aria-label="Console">
          <ul>
            ${menuFor(actor).map((n) => html`<li><a href="${n.href}" ${options.current === n.key ? html`aria-current="page"` : ''}>${n.label}</a></li>`)}
          </ul>
          <form method="post" action="/console/sign-out" class="sign-out">
            <input type="hidden" name="_csrf" value="${csrf}" />
            <span class="who">${actor.email} · ${actor.domain}</span>
            <button type="submit">Sign out</button>
          </form>
        </nav>`
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

/** A message box: `status` for news, `alert` for errors (read out by screen readers either way). */
export const notice = (kind: 'status' | 'alert', text: string | Html) =>
  html`<div class="notice ${kind}" role="${kind}">${text}</div>`

/** A form that POSTs with the CSRF token. */
export const postForm = (action: string, csrf: string, inner: Html, attributes = html``) =>
  html`<form method="post" action="${action}" ${attributes}>
    <input type="hidden" name="_csrf" value="${csrf}" />${inner}
  </form>`
