/** An error as a page: what went wrong in words, with the fields to fix, never internals. */
import type { Actor } from '../../access/actor.ts'
import type { FieldErrors } from '../../core/problem.ts'
import { html } from './html.ts'
import { notice, page } from './layout.ts'

const TITLES: Record<number, string> = { 403: 'Not allowed', 404: 'Not found', 503: 'Unavailable' }

export function errorView(
  status: number,
  text: string,
  errors: readonly FieldErrors[],
  frame: { actor?: Actor | undefined; csrf?: string | undefined },
): string {
  const details = errors.flatMap((fields) =>
    Object.entries(fields).map(([field, messages]) => html`<li>${field}: ${messages.join('; ')}</li>`),
  )
  const body = html`${notice(
      'alert',
      html`${text}${
        details.length > 0
          ? html`<ul>
              ${details}
            </ul>`
          : ''
      }`,
    )}
    <p><a href="/console/">Back to the console</a></p>`
  return page({ title: TITLES[status] ?? 'Something went wrong', actor: frame.actor, csrf: frame.csrf }, body)
}
