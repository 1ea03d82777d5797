/** RFC 6749 §5.2 errors, one constructor per error code, rendered only by the OAuth routes. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(description)
  }
}

export const invalidRequest = (description: string) => new OAuthError('invalid_request', description, 400)
export const invalidClient = (basic: boolean) =>
  new OAuthError(
    'invalid_client',
    'Client authentication failed.',
    401,
    basic ? { 'www-authenticate': 'Basic realm="oauth", charset="UTF-8"' } : {},
  )
export const unsupportedGrantType = (grant: string) =>
  new OAuthError(
    'unsupported_grant_type',
    `Grant type ${JSON.stringify(grant)} is not supported; use client_credentials.`,
    400,
  )
export const accessDenied = (expected: string) =>
  new OAuthError('access_denied', `The audience is not this API's; use ${JSON.stringify(expected)}.`, 403)
export const tooManyAttempts = (retryAfter: number) =>
  new OAuthError('temporarily_unavailable', `Too many failed attempts; retry after ${retryAfter} seconds.`, 429, {
    'retry-after': String(retryAfter),
  })
