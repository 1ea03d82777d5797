/**
 * The OpenAPI 3.1 document, generated from the route schemas (the same ones that validate requests and
 * shape responses), served at /openapi.json, with interactive docs at /docs. `npm run openapi` writes the
 * committed copy in docs/openapi.json; a test fails when that copy is stale.
 */
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { ProblemSchema } from './problem.ts'

const DESCRIPTION = `Procurement service API: vendors, locations and users of a company, for integrating applications.

Obtain a token with client credentials at \`POST /oauth/token\`, then call every \`/api/\` route with
\`Authorization: Bearer <token>\` and \`X-Service-Client: api\`. Errors outside \`/oauth/\` are
\`application/problem+json\` documents (RFC 9457) with \`detail\` always set and field errors under \`errors\`.`

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addSchema({
    ...ProblemSchema,
    $id: 'Problem',
    title: 'Problem',
    description: 'An error (RFC 9457 problem document).',
  })
  await app.register(swagger, {
    transform: documentApi,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Procurement service',
        version: '1.0.0',
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/', description: 'This server' }],
      tags: [
        { name: 'oauth', description: 'Access tokens (client credentials) and their revocation' },
        { name: 'vendors', description: 'Suppliers' },
        { name: 'locations', description: 'Sites of the company, with currency, addresses and legal entity' },
        { name: 'users', description: 'People, their roles and permissions, and the current user' },
        { name: 'look-ups', description: 'Read-only lists for building valid bodies' },
        { name: 'applications', description: 'Client credentials of integrating applications' },
        { name: 'operations', description: 'Health, readiness, metrics' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Access token from POST /oauth/token.',
          },
          clientCredentials: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } } },
        },
      },
    },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get(
    '/openapi.json',
    { schema: { hide: true, response: { 200: { type: 'object', additionalProperties: true } } } },
    async () => app.swagger(),
  )
}

/** Problem responses refer to one shared schema (components/schemas/Problem) instead of repeating it. */
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
})
const API_ERRORS: Record<number, string> = {
  400: 'Invalid body, query, path or header (field errors under `errors`); also a missing or wrong X-Service-Client header',
  401: 'Missing, invalid, expired or revoked access token (with WWW-Authenticate: Bearer error="invalid_token")',
  403: 'The token’s user lacks the permission',
  404: 'No such resource in your tenant (or a page past the last)',
  413: 'The body is larger than the service accepts',
  415: 'The body is not application/json',
  429: 'Too many requests (with Retry-After)',
  503: 'The database is unavailable; retry shortly',
}

/**
 * What every /api/ operation has in common, added to the document only (the request pipeline enforces it
 * elsewhere: auth hook, idempotency hook, problem handler), so the server compiles no extra validators or
 * serializers for it: the bearer security requirement, the X-Service-Client header, Idempotency-Key on
 * POST, and the problem responses any API call can get.
 */
function documentApi({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }): {
  schema: FastifySchema
  url: string
} {
  if (!url.startsWith('/api/')) return { schema, url }
  const methods = [route.method].flat()
  const headers: Record<string, TSchema> = {
    'x-service-client': Type.Literal('api', { description: 'Always "api".' }),
    ...((schema.headers as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {}),
  }
  if (methods.includes('POST')) {
    headers['idempotency-key'] = Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Retry-safe POST: the same key and body within 24 h replay the first response.',
      }),
    )
  }
  const responses: Record<string, unknown> = { ...(schema.response as Record<string, unknown> | undefined) }
  for (const [status, description] of Object.entries(API_ERRORS)) responses[status] ??= problem(description)
  if (methods.some((m) => ['PUT', 'PATCH', 'POST', 'DELETE'].includes(m))) {
    responses[409] ??= problem('Conflict with the current state (e.g. an Idempotency-Key request still running)')
    responses[412] ??= problem('If-Match does not match the current ETag')
    responses[422] ??= problem('Idempotency-Key reused with a different body')
  }
  return {
    url,
    schema: {
      ...schema,
      security: [{ bearerAuth: [] }, { clientCredentials: [] }],
      headers: Type.Object(headers),
      response: responses,
    },
  }
}
