/** The signed-out pages: sign-in, and the set-password form every one-time link opens. */
import { PASSWORD_MIN_LENGTH } from '../../core/passwords.ts'
import { html, type Html } from './html.ts'
import { notice, page } from './layout.ts'

export function signInView(next: string, email = '', message?: Html, sso = false): string {
  return page(
    { title: 'Sign in' },
    html`${message ?? ''}
      ${sso ? html`<p><a class="button" href="/console/sso/start?next=${encodeURIComponent(next)}">Sign in with single sign-on</a></p>` : ''}
      <form method="post" action="/console/sign-in" class="card" novalidate>
        <input type="hidden" name="next" value="${next}" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <p><button type="submit">Sign in</button></p>
      </form>
      <p class="muted">No password yet, or forgot it? Ask your administrator for a set-password link.</p>`,
  )
}

export const noCompanyView = () => page({ title: 'Sign in' }, notice('alert', 'There is no company at this address.'))

export function setupView(token: string, email: string, company: string, message?: Html): string {
  return page(
    { title: 'Set your password' },
    html`<p>Choose a password for <strong>${email}</strong> at ${company}. This link works once.</p>
      ${message ?? ''}
      <form method="post" action="/console/setup/${token}" class="card">
        <label for="password">New password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength="${PASSWORD_MIN_LENGTH}"
          aria-describedby="password-rule"
        />
        <p id="password-rule" class="muted">At least ${PASSWORD_MIN_LENGTH} characters.</p>
        <label for="confirm">Repeat the password</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
        <p><button type="submit">Set password</button></p>
      </form>`,
  )
}

export const deadLinkView = () =>
  page(
    { title: 'Set your password' },
    notice('alert', 'This link is unknown, already used or expired. Ask your administrator for a new one.'),
  )
