/**
 * POST /oauth/token (client credentials) and POST /oauth/revoke (RFC 7009). Errors here are OAuth error
 * bodies `{error, error_description}` (RFC 6749 §5.2), not problem documents.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { isDatabaseUnavailable } from '../http/errors.ts'
import type { ServerKeys } from '../keys.ts'
import { tenantOfHost } from '../http/host.ts'
import { attemptCounterFrom } from '../access/attempts.ts'
import { invalidClient, invalidRequest, OAuthError, unsupportedGrantType } from './errors.ts'
import { issueToken, revokeToken, type ClientAuth, type OAuthDeps } from './service.ts'

/** The longest client id, secret or other OAuth parameter accepted, in the body or in HTTP Basic. */
const MAX_PARAM = 1024
const Param = Type.String({ maxLength: MAX_PARAM })
const TokenBody = Type.Object(
  {
    grant_type: Type.Optional(
      Type.String({
        maxLength: MAX_PARAM,
        description: 'Always `client_credentials` (anything else: unsupported_grant_type). Required.',
        examples: ['client_credentials'],
      }),
    ),
    client_id: Type.Optional(
      Type.String({
        maxLength: MAX_PARAM,
        description: 'The Client ID shown when the application was created; or send it with HTTP Basic instead.',
        examples: ['pc_2b8Xyz…'],
      }),
    ),
    client_secret: Type.Optional(
      Type.String({
        maxLength: MAX_PARAM,
        description: 'The Client Secret; or send it with HTTP Basic instead (never both).',
        examples: ['sk_…'],
      }),
    ),
    audience: Type.Optional(
      Type.String({
        maxLength: MAX_PARAM,
        description:
          'The API audience (`API_AUDIENCE`, by default `procurement-api`). Required, here or as `?audience=`.',
        examples: ['procurement-api'],
      }),
    ),
  },
  { 'x-component': 'TokenRequest', description: 'Client credentials grant (RFC 6749 §4.4), as JSON or form-encoded.' },
)
const TokenQuery = Type.Object({
  audience: Type.Optional(
    Type.String({
      maxLength: MAX_PARAM,
      description:
        'The audience, for OAuth tools that cannot add body fields (e.g. the /docs page); the body wins when both are sent.',
    }),
  ),
})
const RevokeBody = Type.Object(
  {
    token: Type.Optional(Type.String({ maxLength: 8192, description: 'The access token to revoke. Required.' })),
    token_type_hint: Type.Optional(Param),
    client_id: Type.Optional(Param),
    client_secret: Type.Optional(Param),
  },
  { 'x-component': 'RevokeRequest' },
)
const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'Send as `Authorization: Bearer <access_token>`.' }),
    scope: Type.String({ examples: ['urn:service-api:domain:demo urn:service-api:email:admin@example.com'] }),
    expires_in: Type.Integer({
      description: 'Seconds the token lives: cache it until shortly before then.',
      examples: [86400],
    }),
    token_type: Type.Literal('Bearer'),
  },
  { 'x-component': 'TokenResponse' },
)
const OAuthErrorBody = Type.Object(
  {
    error: Type.String({
      description:
        'invalid_request (400), invalid_client (401), unsupported_grant_type (400), access_denied (403: wrong audience), temporarily_unavailable (429 or 503, with Retry-After), server_error (500).',
      examples: ['invalid_client'],
    }),
    error_description: Type.String(),
  },
  { 'x-component': 'OAuthError' },
)

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }

/** Client authentication from the body or from HTTP Basic (RFC 6749 §2.3.1), never both. */
function clientAuth(
  request: FastifyRequest,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): ClientAuth {
  const header = request.headers.authorization
  if (header !== undefined && /^basic(\s|$)/i.test(header)) {
    if (body.client_secret !== undefined) {
      throw invalidRequest('Use one client authentication method: HTTP Basic or client_secret in the body, not both.')
    }
    const encoded = header.slice(5).trim()
    if (encoded === '') throw invalidRequest('The Basic authorization header has no credentials.')
    const decoded = Buffer.from(encoded, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) throw invalidRequest('The Basic authorization header is malformed.')
    let clientId: string
    let clientSecret: string
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '))
      clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '))
    } catch {
      throw invalidRequest('The Basic authorization header is malformed.')
    }
    // The same limits as the body's fields; a NUL cannot be stored or compared by the database.
    if (clientId.length > MAX_PARAM || clientSecret.length > MAX_PARAM)
      throw invalidRequest(`The Basic credentials are longer than ${MAX_PARAM} characters.`)
    if (clientId.includes('\u0000') || clientSecret.includes('\u0000'))
      throw invalidRequest('The Basic credentials may not contain the NUL character.')
    if (body.client_id !== undefined && body.client_id !== clientId) {
      throw invalidRequest('client_id in the body does not match the Basic credentials.')
    }
    return { clientId, clientSecret, basic: true }
  }
  if (body.client_id === undefined || body.client_secret === undefined) {
    throw invalidClient(false)
  }
  return { clientId: body.client_id, clientSecret: body.client_secret, basic: false }
}

function oauthErrorHandler(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply) {
  let oauth: OAuthError
  if (error instanceof OAuthError) oauth = error
  else if ('validation' in error && error.validation !== undefined)
    oauth = invalidRequest(`The request body is not valid: ${error.message}.`)
  else if (error.statusCode === 413) oauth = new OAuthError('invalid_request', 'The request body is too large.', 413)
  else if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    const detail =
      error.statusCode === 415 ? 'Send application/json or application/x-www-form-urlencoded.' : error.message
    oauth = invalidRequest(detail)
  } else if (isDatabaseUnavailable(error)) {
    request.log.error({ err: { message: error.message } }, 'database unavailable')
    oauth = new OAuthError('temporarily_unavailable', 'The service cannot reach its database; retry shortly.', 503, {
      'retry-after': '1',
    })
  } else {
    request.log.error({ err: error }, 'token endpoint failed')
    oauth = new OAuthError('server_error', 'The server failed to handle the request.', 500)
  }
  return reply
    .code(oauth.status)
    .headers({ ...NO_STORE, ...oauth.headers })
    .send({ error: oauth.error, error_description: oauth.description })
}

export const oauthRoutes =
  ({
    config,
    database,
    keys,
  }: {
    config: Readonly<Config>
    database: Database
    keys: ServerKeys
  }): FastifyPluginAsyncTypebox =>
  async (app) => {
    const deps: OAuthDeps = {
      db: database.db,
      keys,
      config,
      attempts: attemptCounterFrom(config, 'token'),
    }
    app.setErrorHandler(oauthErrorHandler)
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 16384 },
      (_req, body, done) => {
        const params = new URLSearchParams(body as string)
        const keys = [...params.keys()]
        if (new Set(keys).size !== keys.length) return done(invalidRequest('A parameter is repeated.'))
        done(null, Object.fromEntries(params))
      },
    )
    const origin = (request: FastifyRequest) => ({
      host: tenantOfHost(config.BASE_DOMAIN, request.host),
      address: request.ip,
    })
    const requireBody = (body: unknown) => {
      if (body === undefined || body === null) throw invalidRequest('The request has no body.')
    }

    app.post(
      '/oauth/token',
      {
        config: { accessNeutral: true },
        schema: {
          summary: 'Exchange client credentials for an access token',
          description:
            'Client credentials in the body (`client_secret_post`) or in an HTTP Basic header (`client_secret_basic`), never both; JSON or form-encoded.',
          operationId: 'getToken',
          tags: ['oauth'],
          consumes: ['application/json', 'application/x-www-form-urlencoded'],
          security: [{ clientBasic: [] }, {}],
          querystring: TokenQuery,
          body: TokenBody,
          response: { 200: TokenResponse, '4xx': OAuthErrorBody, '5xx': OAuthErrorBody },
        },
      },
      async (request, reply) => {
        requireBody(request.body)
        const body = request.body
        const auth = clientAuth(request, body)
        if (body.grant_type === undefined) throw invalidRequest('grant_type is required.')
        if (body.grant_type !== 'client_credentials') throw unsupportedGrantType(body.grant_type)
        const audience = body.audience ?? request.query.audience
        if (audience === undefined) throw invalidRequest(`audience is required: send "${config.API_AUDIENCE}".`)
        const token = await issueToken(deps, auth, audience, origin(request))
        return reply.headers(NO_STORE).send(token)
      },
    )

    app.post(
      '/oauth/revoke',
      {
        schema: {
          summary: 'Revoke an access token (RFC 7009)',
          operationId: 'revokeToken',
          tags: ['oauth'],
          consumes: ['application/json', 'application/x-www-form-urlencoded'],
          security: [{ clientBasic: [] }, {}],
          body: RevokeBody,
          response: { 200: Type.Object({}), '4xx': OAuthErrorBody, '5xx': OAuthErrorBody },
        },
      },
      async (request, reply) => {
        requireBody(request.body)
        const auth = clientAuth(request, request.body)
        if (request.body.token === undefined) throw invalidRequest('token is required.')
        await revokeToken(deps, auth, request.body.token, origin(request))
        return reply.headers(NO_STORE).send({})
      },
    )
  }
