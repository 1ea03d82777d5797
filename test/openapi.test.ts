/** The published contract: valid OpenAPI 3.1, complete, and the committed copy current. */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { generateOpenApi, OPENAPI_PATH } from '../scripts/openapi.ts'
import { useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

interface Operation {
  parameters?: { $ref?: string; name: string; in: string; required?: boolean }[]
  security?: object[]
  responses: Record<string, unknown>
  summary?: string
}

test('GET /openapi.json is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
  const response = await ctx.app.inject('/openapi.json')
  assert.equal(response.statusCode, 200)
  const document = response.json()
  assert.equal(document.openapi, '3.1.0')
  await SwaggerParser.validate(structuredClone(document))
})

test('every route is documented; every /api/ operation has security, X-Service-Client and problem responses', async () => {
  const document = (await ctx.app.inject('/openapi.json')).json<{
    paths: Record<string, Record<string, Operation>>
    components: {
      securitySchemes: object
      parameters: Record<string, { name: string; in: string; required?: boolean }>
    }
  }>()
  const resolve = (p: { $ref?: string; name: string; in: string; required?: boolean }) =>
    p.$ref === undefined ? p : document.components.parameters[p.$ref.split('/').at(-1)!]!
  assert.ok('bearerAuth' in document.components.securitySchemes)
  // The console's pages are HTML for people (docs/console.md), not part of the API contract; SCIM's contract
  // is RFC 7643/7644, described by its own discovery endpoints (/scim/v2/Schemas; docs/sso.md).
  const routes = ctx.app.routeTable.filter(
    (r) =>
      !r.url.startsWith('/docs') &&
      !r.url.startsWith('/console') &&
      !r.url.startsWith('/scim/') &&
      r.url !== '/openapi.json' &&
      // A report's name not among the six: the documented routes are one per report (docs/reports.md).
      r.url !== '/api/v3/reports/:name/',
  )
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}')
    for (const method of [...route.methods].filter((m) => m !== 'HEAD')) {
      const operation = document.paths[path]?.[method.toLowerCase()]
      assert.ok(operation, `${method} ${path} is in the document`)
      assert.ok(operation.summary, `${method} ${path} has a summary`)
      if (!path.startsWith('/api/')) continue
      assert.ok(operation.security?.length, `${method} ${path} declares security`)
      assert.ok(
        operation.parameters
          ?.map(resolve)
          .some((p) => p.in === 'header' && p.name === 'x-service-client' && p.required),
        `${method} ${path} documents X-Service-Client`,
      )
      for (const status of ['400', '401', '403', '404', '503'])
        assert.ok(operation.responses[status], `${method} ${path} documents ${status}`)
    }
  }
})

test('docs/openapi.json is current (run `npm run openapi` after changing a route)', async () => {
  const committed = fs.readFileSync(OPENAPI_PATH, 'utf8')
  assert.ok(committed === (await generateOpenApi()), 'docs/openapi.json is stale: run npm run openapi and commit it')
})

test('/docs serves the interactive documentation', async () => {
  const response = await ctx.app.inject('/docs/')
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /text\/html/)
})

test('the document is small and names its schemas: components referenced by $ref, under 760 KB', async () => {
  const committed = fs.readFileSync(OPENAPI_PATH, 'utf8')
  // 200 KB held the vendor, location and user API; requests, approvals, rules, roles and delegation add 17 operations;
  // the look-up writes (departments, currencies, the four vendor look-ups) 12 more, about 2 KB each;
  // purchase orders, receipts and procurement settings (issue #31) 19 more (about 70 KB, pretty-printed).
  // Wave 5 (accounts, budgets, reports with a row schema each, attachments, expenses, travel, payments): about 70
  // more operations, about 300 KB pretty-printed.
  assert.ok(committed.length < 760_000, `${committed.length} bytes`)
  const document = JSON.parse(committed) as {
    components: { schemas: Record<string, unknown> }
    paths: Record<string, unknown>
  }
  for (const name of [
    'Vendor',
    'Location',
    'UserProfile',
    'UserProfileMe',
    'Problem',
    'Pagination',
    'TokenRequest',
    'TokenResponse',
  ]) {
    assert.ok(document.components.schemas[name], `components.schemas.${name}`)
  }
  assert.match(JSON.stringify(document.paths['/api/v3/vendors/']), /#\/components\/schemas\/VendorList/)
})

test('every field and parameter is described, with an example that is valid for it (references show their own)', () => {
  const document = JSON.parse(fs.readFileSync(OPENAPI_PATH, 'utf8')) as {
    components: {
      schemas: Record<string, { properties?: Record<string, Record<string, unknown>> }>
      parameters: Record<string, Record<string, unknown>>
    }
    paths: Record<string, Record<string, { parameters?: Record<string, unknown>[] }>>
  }
  const undescribed: string[] = []
  const withoutExample: string[] = []
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    for (const [field, property] of Object.entries(schema.properties ?? {})) {
      if (property.description === undefined) undescribed.push(`${name}.${field}`)
      if (property.examples === undefined && !JSON.stringify(property).includes('$ref'))
        withoutExample.push(`${name}.${field}`)
    }
  }
  const parameters = [
    ...Object.values(document.components.parameters),
    ...Object.values(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => operation.parameters ?? []),
    ),
  ].filter((p) => p.$ref === undefined)
  for (const p of parameters) {
    if (p.description === undefined) undescribed.push(`parameter ${String(p.name)}`)
    if ((p.schema as { examples?: unknown } | undefined)?.examples === undefined)
      withoutExample.push(`parameter ${String(p.name)}`)
  }
  assert.deepEqual(undescribed, [])
  assert.deepEqual(withoutExample, [])
})
