/**
 * The OpenAPI 3.1 document, generated from the route schemas (the same ones that validate requests and
 * shape responses), served at /openapi.json, with interactive docs at /docs. `npm run openapi` writes the
 * committed copy in docs/openapi.json; a test fails when that copy is stale.
 */
import swagger from '@fastify/swagger'
import { Ajv } from 'ajv'
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchema,
  type RouteOptions,
} from 'fastify'
import fp from 'fastify-plugin'
import { Type, type TSchema } from 'typebox'
import { FIELD_DOCS, SCHEMA_FIELD_DOCS } from './field-docs.ts'
import { ProblemSchema } from '../core/problem.ts'
import { serviceVersion } from '../core/version.ts'

const DESCRIPTION = `Procurement service API: the whole purchase-to-pay cycle of a company — requests and their
approval, purchase orders, receiving, bills and matching, payments, expenses and travel, budgets and reports —
with the vendors, locations, users and settings behind it, for integrating applications.

Obtain a token with client credentials at \`POST /oauth/token\`, then call every \`/api/\` route with
\`Authorization: Bearer <token>\` and \`X-Service-Client: api\`. Errors outside \`/oauth/\` are
\`application/problem+json\` documents (RFC 9457) with \`detail\` always set and field errors under \`errors\`.`

/**
 * Every resource group of the API, in the order a reader meets them; a route's `tags` name one of these
 * (test/openapi-info.test.ts checks that every tag used is described here).
 */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'oauth', description: 'Access tokens (client credentials) and their revocation' },
  { name: 'requests', description: 'Purchase requests: drafts, submission, cancellation, approval preview' },
  { name: 'approval-rules', description: 'Who approves which documents, where and from which total (base currency)' },
  { name: 'approvals', description: 'The approvals inbox, decisions and out-of-office delegation' },
  { name: 'purchase-orders', description: 'Purchase orders made from requests: issue, send, revise, close' },
  { name: 'receipts', description: 'Goods and services received against purchase orders' },
  { name: 'bills', description: 'Vendor invoices, matched against orders and receipts, approved and paid' },
  { name: 'payment requests', description: 'Requests to pay without an order, and their approval' },
  { name: 'payment runs', description: 'Batches of approved bills and payment requests paid together' },
  { name: 'bank accounts', description: 'The company’s bank accounts that payment runs pay from' },
  { name: 'expense-reports', description: 'Expense reports and their reimbursement' },
  { name: 'travel-requests', description: 'Travel requests approved before the trip' },
  { name: 'accounts', description: 'The chart of accounts lines are booked to' },
  { name: 'budgets', description: 'Budgets and the commitment ledger that spend control reads' },
  { name: 'reports', description: 'Spend, budget and approval reports (nav_report)' },
  { name: 'vendors', description: 'Suppliers' },
  { name: 'locations', description: 'Sites of the company, with currency, addresses and legal entity' },
  { name: 'users', description: 'People, their roles and permissions, and the current user' },
  { name: 'roles', description: 'Roles: named sets of permissions granted to users, per location' },
  { name: 'look-ups', description: 'Lists for building valid bodies: currencies, departments, vendor look-ups' },
  { name: 'procurement-settings', description: 'Tolerances, the match mode and the receipt threshold' },
  { name: 'events', description: 'What changed, as a feed of events' },
  { name: 'webhooks', description: 'Subscriptions that receive events as they happen, signed' },
  { name: 'attachments', description: 'Files attached to every document' },
  { name: 'comments', description: 'Comments on every document' },
  { name: 'applications', description: 'Client credentials of integrating applications' },
  { name: 'sso', description: 'Single sign-on (OpenID Connect, SAML) and SCIM provisioning' },
  { name: 'operations', description: 'Health, readiness, metrics' },
]

/** Statuses an operation answers beyond those every operation of its kind declares (documentApi). */
const OWN_RESPONSES: Record<string, Record<number, string>> = {
  replacePurchaseOrder: { 428: 'Revising an issued order needs If-Match (its ETag from a GET), and none was sent' },
}

export async function registerOpenApi(app: FastifyInstance, audience: string): Promise<void> {
  app.addSchema({
    ...ProblemSchema,
    $id: 'Problem',
    title: 'Problem',
    description: 'An error (RFC 9457 problem document).',
  })
  await app.register(swagger, {
    transform: documentApi,
    transformObject: (document) =>
      componentize(('openapiObject' in document ? document.openapiObject : {}) as OpenApiDocument) as never,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Procurement service',
        version: serviceVersion(),
        description: DESCRIPTION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: '/', description: 'This server' }],
      tags: [...TAGS],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Access token from POST /oauth/token.',
          },
          clientCredentials: {
            type: 'oauth2',
            description: 'Client credentials; the /docs page sends the audience for you.',
            flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } },
          },
          clientBasic: {
            type: 'http',
            scheme: 'basic',
            description: 'Client ID and Client Secret as HTTP Basic credentials (client_secret_basic).',
          },
        },
      },
    },
  })
  lazyDocs(app, audience)
  app.get(
    '/openapi.json',
    { schema: { hide: true, response: { 200: { type: 'object', additionalProperties: true } } } },
    async () => app.swagger(),
  )
}

/** Headers of Swagger UI's answers that are the connection's business, not the answer's. */
const HOP_BY_HOP = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding'])

/**
 * /docs, Swagger UI, loaded on its first request: its package and @fastify/static were some 250 ms of every
 * start's module loading, for a page few starts ever serve. It runs in a small Fastify instance of its own,
 * asked through inject(), which shows this app's document; this app's hooks (security headers, request ids)
 * apply to the answers as to any other.
 */
function lazyDocs(app: FastifyInstance, audience: string): void {
  let ui: Promise<FastifyInstance> | undefined
  const load = async () => {
    const { default: swaggerUi } = await import('@fastify/swagger-ui')
    const docs = Fastify({ logger: false })
    // Swagger UI needs @fastify/swagger's `swagger()`: this stands in for it, with this app's document.
    await docs.register(
      fp(
        async (instance) => {
          instance.decorate('swagger', ((options?: object) => app.swagger(options)) as never)
        },
        { name: '@fastify/swagger' },
      ),
    )
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // "Authorize" with client credentials must name the audience, which Swagger UI sends as ?audience=.
      initOAuth: { additionalQueryStringParams: { audience } },
      // A filter by tag above the operations: the document has some thirty tags, and the page draws the operations
      // as they scroll into view, so the filter is how a reader (and the browser test) goes straight to one.
      uiConfig: { persistAuthorization: false, tryItOutEnabled: true, filter: true },
      logo: { type: 'image/svg+xml', content: DOCS_LOGO, href: '/docs', target: '_self' },
      theme: { title: 'Procurement service API' },
      // Swagger UI fills "Try it out" inputs with the parameters' examples: a list would open filtered by them.
      transformSpecification: withoutParameterExamples,
      transformSpecificationClone: true,
    })
    await docs.ready()
    return docs
  }
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    ui ??= load().catch((error: unknown) => {
      ui = undefined // tried again on the next request
      throw error
    })
    const answer = await (
      await ui
    ).inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: Object.fromEntries(
        ['accept', 'accept-encoding', 'if-none-match', 'if-modified-since', 'range']
          .filter((name) => request.headers[name] !== undefined)
          .map((name) => [name, request.headers[name] as string]),
      ),
    })
    if (answer.statusCode === 404) return reply.callNotFound() // this app's problem document, as elsewhere
    reply.code(answer.statusCode)
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value)
    return reply.send(answer.rawPayload.length > 0 ? answer.rawPayload : undefined)
  }
  app.get('/docs', { schema: { hide: true } }, handler)
  app.get('/docs/*', { schema: { hide: true } }, handler)
  app.addHook('onClose', async () => {
    const loaded = ui
    ui = undefined
    await (await loaded?.catch(() => undefined))?.close()
  })
}

/** Our name in the documentation's header (Swagger UI shows its own logo otherwise). */
const DOCS_LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="260" height="40" viewBox="0 0 260 40" role="img" aria-label="Procurement service API">' +
    '<rect width="40" height="40" rx="8" fill="#0b5cad"/><path d="M12 28V12h9a6 6 0 0 1 0 12h-5v4z" fill="#fff"/>' +
    '<text x="50" y="26" font-family="system-ui, sans-serif" font-size="17" font-weight="700" fill="#fff">Procurement service API</text></svg>',
)

/** The document as /docs shows it: the query parameters' examples left out (they stay in /openapi.json). */
function withoutParameterExamples(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy = document as Record<string, unknown> // transformSpecificationClone hands us our own copy
  const paths = (copy.paths ?? {}) as Record<
    string,
    Record<string, { parameters?: { in?: string; schema?: object; example?: unknown; examples?: unknown }[] }>
  >
  for (const operations of Object.values(paths))
    for (const operation of Object.values(operations))
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'query') continue
        delete parameter.example
        delete parameter.examples
        if (parameter.schema !== undefined) delete (parameter.schema as { examples?: unknown }).examples
      }
  return copy
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

const pascal = (words: string) => words.replace(/(^|[-_/ ])([a-z0-9])/g, (_m, _s: string, c: string) => c.toUpperCase())
const singular = (word: string) => word.replace(/ies$/, 'y').replace(/s$/, '')

/**
 * A readable operation id from the method and path, for generated clients: `listVendors`, `getVendor`,
 * `replaceLocation`, `createUsers`, `rotateApplication`; a second version of a path gets its version
 * appended (`listLocationsV3`).
 */
export function operationIdOf(method: string, url: string): string {
  const segments = url.split('/').filter((s) => s !== '' && s !== 'api')
  const version = /^v\d+$/.test(segments[0] ?? '') ? segments.shift()! : ''
  const suffix = version === 'v3' && url.includes('/locations') ? 'V3' : ''
  const params = segments.filter((s) => s.startsWith(':'))
  const words = segments.filter((s) => !s.startsWith(':'))
  const resource = pascal(words[0] ?? 'root')
  const action = words.length > 1 ? words.at(-1)! : undefined
  if (action !== undefined && action !== 'me') return `${action}${pascal(singular(words[0]!))}${suffix}`
  if (action === 'me') return `get${pascal(singular(words[0]!))}Me`
  const item = params.length > 0
  const verbs: Record<string, string> = item
    ? { GET: 'get', PUT: 'replace', PATCH: 'update', DELETE: 'delete', POST: 'post' }
    : { GET: 'list', POST: 'create', PUT: 'put', DELETE: 'delete', PATCH: 'patch' }
  const name = item || method === 'POST' ? pascal(singular(words[0]!)) : resource
  return `${verbs[method] ?? method.toLowerCase()}${name}${suffix}`
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
  const methods = [route.method].flat()
  const operationId = schema.operationId ?? operationIdOf(methods[0] ?? 'GET', url)
  // Public operations say so (an empty security requirement) rather than leaving it unstated.
  if (!url.startsWith('/api/')) {
    const responses: Record<string, unknown> = { ...(schema.response as Record<string, unknown> | undefined) }
    if (url.startsWith('/invitations/')) {
      responses[400] ??= problem('The token is not in the form a link carries')
      responses[404] ??= problem('The link is unknown, already used or expired')
    }
    // The Host guard (http/host-guard.ts) answers any path: a bad or doubled Host header, a foreign target.
    responses[400] ??= problem('The Host header or the request target is not valid')
    const documented = { ...schema, operationId, security: schema.security ?? [], response: responses }
    return { schema: documented, url }
  }
  const headers: Record<string, TSchema> = {
    'x-service-client': Type.Literal('api', { description: 'Always "api".', default: 'api' }),
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
  for (const [status, description] of Object.entries(OWN_RESPONSES[operationId] ?? {}))
    responses[status] ??= problem(description)
  if (methods.some((m) => ['PUT', 'PATCH', 'POST', 'DELETE'].includes(m))) {
    responses[409] ??= problem('Conflict with the current state (e.g. an Idempotency-Key request still running)')
    responses[412] ??= problem('If-Match does not match the current ETag')
    responses[422] ??= problem('Idempotency-Key reused with a different body')
  }
  return {
    url,
    schema: {
      ...schema,
      operationId,
      security: [{ bearerAuth: [] }, { clientCredentials: [] }],
      headers: Type.Object(headers),
      response: responses,
    },
  }
}

interface OpenApiDocument {
  paths?: Record<string, unknown>
  components?: { schemas?: Record<string, unknown> } & Record<string, unknown>
}

const SHARED_PARAMETERS: Record<string, string> = {
  'query:page': 'Page',
  'query:page_size': 'PageSize',
  'query:search': 'Search',
  'query:format': 'Format',
  'header:x-service-client': 'ServiceClient',
  'header:idempotency-key': 'IdempotencyKey',
  'path:id': 'Id',
}
const PROBLEM_RESPONSES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '412': 'PreconditionFailed',
  '413': 'TooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'IdempotencyMismatch',
  '429': 'RateLimited',
  '503': 'Unavailable',
}

const examplesAjv = new Ajv({ strict: false, validateFormats: false })
/** Whether an example is valid for a schema (one that refers to others is left without a generic example). */
function fits(schema: object, example: unknown): boolean {
  if (JSON.stringify(schema).includes('"$ref"')) return false
  try {
    return examplesAjv.validate({ ...schema, examples: undefined }, example)
  } catch {
    return false
  }
}

/** Adds a description, and an example that fits, to every property that has none (src/http/field-docs.ts). */
function describeSchemas(schemas: Record<string, unknown>): Record<string, unknown> {
  for (const [name, schema] of Object.entries(schemas)) {
    const properties = (schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {}
    for (const [field, property] of Object.entries(properties)) {
      const doc = SCHEMA_FIELD_DOCS[`${name}.${field}`] ?? FIELD_DOCS[field]
      if (doc === undefined) continue
      property.description ??= doc[0]
      if (property.examples === undefined && doc[1] !== undefined && fits(property, doc[1]))
        property.examples = [doc[1]]
    }
  }
  return schemas
}

/** The same for parameters, by name. */
function describeParameters(node: unknown): void {
  if (node === null || typeof node !== 'object') return
  if (Array.isArray(node)) return node.forEach(describeParameters)
  const parameter = node as { in?: unknown; name?: unknown; description?: string; schema?: Record<string, unknown> }
  if (typeof parameter.in === 'string' && typeof parameter.name === 'string') {
    // A parameter's own example (a schema's `examples`, which the plugin moves to the parameter) stays its own.
    const own = (parameter as { example?: unknown }).example
    if (own !== undefined && parameter.schema !== undefined) parameter.schema.examples ??= [own]
    const doc = FIELD_DOCS[parameter.name]
    if (doc !== undefined) {
      parameter.description ??= parameter.name === 'id' ? 'Id of the item.' : doc[0]
      const schema = parameter.schema
      if (schema !== undefined && schema.examples === undefined) {
        // The name's example, or failing that one the parameter's own values allow (an enum's last, a shorter text).
        const allowed =
          (schema.enum as unknown[] | undefined) ??
          (schema.anyOf as { const?: unknown; enum?: unknown[] }[] | undefined)?.map((b) => b.const ?? b.enum?.[0])
        const short =
          typeof doc[1] === 'string' && typeof schema.maxLength === 'number'
            ? doc[1].slice(0, schema.maxLength)
            : undefined
        const example = [doc[1], allowed?.at(-1), short].find(
          (candidate) => candidate !== undefined && fits(schema, candidate),
        )
        if (example !== undefined) schema.examples = [example]
      }
    }
    return
  }
  for (const value of Object.values(node)) describeParameters(value)
}

/**
 * A CSV response is text, not the JSON envelope the generator copies into it (a file's bytes, such as an
 * attachment's download, stay binary).
 */
function csvAsText(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(csvAsText)
  if (node === null || typeof node !== 'object') return node
  const binary = (value: unknown) => (value as { schema?: { format?: unknown } }).schema?.format === 'binary'
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) =>
      key === 'text/csv' && !binary(value)
        ? [
            key,
            {
              schema: {
                type: 'string',
                description:
                  'The page as RFC 4180 CSV: a header row of the item fields, then one row per item; pagination in the Link and X-Total-Count headers.',
              },
            },
          ]
        : [key, csvAsText(value)],
    ),
  )
}

/**
 * Schemas marked `x-component: Name` (in their TypeBox options) become named components referenced by `$ref`,
 * so generators produce readable types and the document stays small. The same name on two different
 * schemas is a mistake, caught here rather than published.
 */
function componentize(document: OpenApiDocument): OpenApiDocument {
  const schemas: Record<string, unknown> = { ...document.components?.schemas }
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit)
    if (node === null || typeof node !== 'object') return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) if (key !== 'x-component') out[key] = visit(value)
    const name = (node as { 'x-component'?: unknown })['x-component']
    if (typeof name !== 'string') return out
    const known = schemas[name]
    if (known === undefined) schemas[name] = out
    else if (JSON.stringify(known) !== JSON.stringify(out)) throw new Error(`two different schemas are named ${name}`)
    return { $ref: `#/components/schemas/${name}` }
  }
  const paths = visit(csvAsText(document.paths)) as Record<string, unknown>
  const parameters: Record<string, unknown> = {}
  // The API's problem responses are the shared ones; an operation that says something else keeps its own.
  const responses: Record<string, unknown> = Object.fromEntries(
    Object.entries(API_ERRORS).map(([status, description]): [string, unknown] => [
      PROBLEM_RESPONSES[status]!,
      { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    ]),
  )
  // Parameters every list or API call shares, and the problem responses, are written once and referenced.
  for (const item of Object.values(paths) as Record<
    string,
    { parameters?: unknown[]; responses?: Record<string, unknown> }
  >[]) {
    for (const operation of Object.values(item)) {
      if (operation.parameters !== undefined)
        operation.parameters = operation.parameters.map((parameter) => {
          const { name, in: where } = parameter as { name: string; in: string }
          const key = SHARED_PARAMETERS[`${where}:${name}`]
          if (key === undefined) return parameter
          const known = parameters[key]
          if (known !== undefined && JSON.stringify(known) !== JSON.stringify(parameter)) return parameter
          parameters[key] = parameter
          return { $ref: `#/components/parameters/${key}` }
        })
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const key = PROBLEM_RESPONSES[status]
        if (key === undefined || !JSON.stringify(response).includes('/components/schemas/Problem')) continue
        // Variants of one status (their descriptions differ) are written once each: BadRequest, BadRequest2, …
        const text = JSON.stringify(response)
        let name = key
        for (let n = 2; responses[name] !== undefined && JSON.stringify(responses[name]) !== text; n++)
          name = `${key}${n}`
        responses[name] ??= response
        operation.responses![status] = { $ref: `#/components/responses/${name}` }
      }
    }
  }
  const documented = {
    ...document,
    paths,
    components: { ...document.components, schemas: describeSchemas(schemas), parameters, responses },
  }
  describeParameters(documented.paths)
  describeParameters(documented.components.parameters)
  return documented
}
