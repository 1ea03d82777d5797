/** Errors the client throws: a problem document from the API, an OAuth error from the token endpoint. */
import type { components } from './generated/openapi.ts'

export type Problem = components['schemas']['Problem']

/**
 * The API refused the request: `status`, the stable `type` to branch on (`/problems/validation`,
 * `/problems/not-found`, …), `detail` for people, and field `errors` for validation failures.
 *
 * @example
 * try {
 *   await client.vendors.create({ name: '' })
 * } catch (error) {
 *   if (error instanceof ProblemError && error.type === '/problems/validation') console.log(error.errors)
 * }
 */
export class ProblemError extends Error {
  override name = 'ProblemError'
  readonly status: number
  readonly type: string
  readonly title: string
  readonly detail: string
  readonly errors: Problem['errors']

  constructor(readonly problem: Problem) {
    super(`${problem.status} ${problem.title}: ${problem.detail}`)
    this.status = problem.status
    this.type = problem.type
    this.title = problem.title
    this.detail = problem.detail
    this.errors = problem.errors
  }
}

/**
 * The token endpoint refused the credentials or the request (RFC 6749 §5.2): `error` is `invalid_client`,
 * `invalid_request`, `access_denied` (wrong audience), `temporarily_unavailable` …
 */
export class OAuthError extends Error {
  override name = 'OAuthError'
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
  ) {
    super(`${status} ${error}: ${description}`)
  }
}
