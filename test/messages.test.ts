/**
 * Every validation message is a sentence (DECISIONS, "Errors outside /api/"): the test walks EVERY route the
 * app registered (the API's and the console's), makes failing inputs for each constraint of its schema
 * (wrong types, too short, too long, off-pattern, off-format, outside the enum, below the minimum, above the
 * maximum, empty and overfull lists, unknown and missing fields), sends them, and fails on any message that is
 * a JSON-schema keyword, a pattern or a format name — and on any 5xx. The console's forms are checked through
 * the pages people use (they hold the form to the API's own schema, with the same catalogue).
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'
import { adminBrowser, newTenant } from './helpers/security.ts'

const ctx = useTestApp()

/** What a validator says in its own words: keywords, patterns, format names. */
const NOT_A_SENTENCE =
  /must NOT|must match|must have required|must be equal to|must be (integer|string|number|boolean|array|object|null)\b|must be [<>]=|\b(anyOf|oneOf|allOf|minLength|maxLength|minimum|maximum|minItems|maxItems|minProperties|maxProperties|uniqueItems|additionalProperties|exclusiveMinimum|multipleOf|pattern|format|date-time|uri-reference|schema)\b|\^|\\d|\\S|\{\d+,?\d*\}|\[0-9|\[a-z/

type Schema = Record<string, unknown> & {
  type?: string | string[]
  properties?: Record<string, Schema>
  items?: Schema
  anyOf?: Schema[]
  oneOf?: Schema[]
  patternProperties?: Record<string, Schema>
}
const MODES = [
  'type',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'enum',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'required',
  'extra',
] as const
type Mode = (typeof MODES)[number]

/** A value of `schema` that breaks its constraints of kind `mode` wherever it has one (depth-limited). */
function failing(schema: Schema, mode: Mode, depth = 0): unknown {
  const union = schema.anyOf ?? schema.oneOf
  if (union !== undefined) {
    const branch = union.find((b) => b.type !== 'null' && b.const === undefined) ?? union[0]!
    if (mode === 'type') return union.some((b) => b.type === 'object') ? 12.5 : { not: 'this' }
    if (union.every((b) => b.const !== undefined) && mode === 'enum') return 'zzz-not-allowed'
    return failing(branch, mode, depth)
  }
  if (schema.const !== undefined) return mode === 'type' || mode === 'enum' ? 'zzz-not-allowed' : schema.const
  if (Array.isArray(schema.enum)) return mode === 'type' || mode === 'enum' ? 'zzz-not-allowed' : schema.enum[0]
  const type = [schema.type].flat()[0]
  const n = (key: string) => (typeof schema[key] === 'number' ? schema[key] : undefined)
  switch (type) {
    case 'object': {
      if (mode === 'type') return ['not', 'an', 'object']
      if (depth > 4) return {}
      const out: Record<string, unknown> = {}
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const nested = [property.type].flat()[0] === 'object' || [property.type].flat()[0] === 'array'
        if (mode === 'required' && !nested) continue
        out[name] = failing(property, mode, depth + 1)
      }
      if (schema.properties === undefined && schema.patternProperties !== undefined)
        for (let i = 0; i < (n('maxProperties') ?? 3) + 1; i++)
          out[`field${i}`] = mode === 'maxLength' ? 'x'.repeat(10_001) : 'x'
      if (mode === 'extra') out.zz_not_a_field = 1
      return out
    }
    case 'array': {
      const item = schema.items === undefined ? 'x' : failing(schema.items, mode, depth + 1)
      if (mode === 'type') return 'not a list'
      if (mode === 'minItems' && n('minItems') !== undefined) return []
      if (mode === 'maxItems' && n('maxItems') !== undefined)
        return Array.from({ length: n('maxItems')! + 1 }, () => item)
      return [item, item]
    }
    case 'string': {
      if (mode === 'type') return 12345
      if (mode === 'minLength' && n('minLength') !== undefined) return ''
      if (mode === 'maxLength' && n('maxLength') !== undefined) return 'x'.repeat(n('maxLength')! + 1)
      if (mode === 'pattern' && schema.pattern !== undefined) return '!! not it !!'
      if (mode === 'format' && schema.format !== undefined) return 'not-a-valid-value'
      return 'ok'
    }
    case 'integer':
    case 'number': {
      if (mode === 'type') return 'twelve'
      if (mode === 'minimum' && n('minimum') !== undefined) return n('minimum')! - 1
      if (mode === 'maximum' && n('maximum') !== undefined) return n('maximum')! + 1
      if (mode === 'minimum' && type === 'integer') return 1.5
      return n('minimum') ?? 1
    }
    case 'boolean':
      return mode === 'type' ? 'perhaps' : true
    case 'null':
    case undefined:
    default:
      return mode === 'type' ? 'x' : null
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/** The query string for a failing query object: lists as repeated parameters. */
function queryOf(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return ''
  const params = new URLSearchParams()
  for (const [name, v] of Object.entries(value)) for (const one of [v].flat()) params.append(name, text(one))
  return params.size === 0 ? '' : `?${params.toString()}`
}

function pathOf(url: string, params: Schema | undefined, mode: Mode): string {
  return url.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    const schema = params?.properties?.[name]
    if (schema === undefined) return '1'
    const value = failing(schema, mode)
    return encodeURIComponent(value === null || typeof value === 'object' ? '1' : text(value) || '1')
  })
}

/** Every message of a problem body (detail and field errors, batch items included). */
function messagesOf(body: { detail?: string; errors?: unknown }): string[] {
  const out = body.detail === undefined ? [] : [body.detail]
  for (const item of [body.errors ?? []].flat() as Record<string, string[]>[])
    for (const [field, messages] of Object.entries(item)) {
      assert.equal(new Set(messages).size, messages.length, `${field}: one message per problem`)
      out.push(...messages)
    }
  return out
}

describe('every validation message is a sentence', () => {
  test('the API: every route, every constraint', async () => {
    const { api } = await signedIn(ctx)
    let checked = 0
    let refused = 0
    for (const route of ctx.app.routeTable) {
      if (!route.url.startsWith('/api/')) continue
      for (const [method, raw] of route.schemas) {
        if (method === 'HEAD') continue
        const schema = (raw ?? {}) as { body?: Schema; querystring?: Schema; params?: Schema }
        for (const mode of MODES) {
          const url =
            pathOf(route.url, schema.params, mode) + queryOf(schema.querystring && failing(schema.querystring, mode))
          const payload = schema.body === undefined ? undefined : failing(schema.body, mode)
          const response = await api({
            method,
            url,
            ...(payload === undefined
              ? {}
              : { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } }),
          })
          const where = `${method} ${url} ${mode} ${JSON.stringify(payload)?.slice(0, 200)}`
          assert.ok(response.statusCode < 500, `${where} → ${response.statusCode} ${response.body.slice(0, 300)}`)
          checked++
          if (response.statusCode !== 400) continue
          refused++
          for (const message of messagesOf(response.json()))
            assert.doesNotMatch(message, NOT_A_SENTENCE, `${where}: "${message}"`)
        }
      }
    }
    assert.ok(checked > 500, `walked ${checked} requests`)
    assert.ok(refused > 300, `${refused} of them refused`)
  })

  test('the messages the issue quotes', async () => {
    const { api } = await signedIn(ctx)
    const errors = async (url: string, payload: unknown) =>
      (await api({ method: 'POST', url, payload: payload as object })).json().errors as Record<string, string[]>
    const request = await errors('/api/v3/requests/', {
      location: 1,
      lines: [{ description: 'x', quantity: '1', unit_price: '249,50' }],
    })
    assert.deepEqual(request['lines.0.unit_price'], ['must be a decimal number like 19.99 (up to 4 decimals)'])
    const vendor = await errors('/api/v3/vendors/', { name: '', email: ['not an address'] })
    assert.deepEqual(vendor.name, ['must not be empty'])
    assert.deepEqual(vendor['email.0'], ['must be an e-mail address'])
    const location = await errors('/api/v2/locations/', { name: '' })
    assert.deepEqual(location.name, ['must not be empty'])
    assert.deepEqual(location.currency, ['is required'])
    // Empty is also blank: one problem, one message.
    assert.deepEqual((await errors('/api/v3/roles/', { name: '', permissions: [] })).name, ['must not be empty'])
    const query = (await api({ method: 'GET', url: '/api/v3/vendors/?format=xml' })).json().errors
    assert.deepEqual(query.format, ['must be one of: json, csv'])
  })

  test('the console: its routes, and forms held to the API schemas, show the same sentences', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const forms: [string, string, Record<string, string>, RegExp[]][] = [
      [
        '/console/vendors/new',
        '/console/vendors/new',
        { name: '', email: 'not an address' },
        [/must not be empty/, /must be an e-mail address/],
      ],
      ['/console/users', '/console/users/invite', { email: 'x@y' }, [/must be an e-mail address/]],
    ]
    for (const [page, url, form, expected] of forms) {
      const response = await b.submit(page, url, form)
      assert.equal(response.statusCode, 400, `${url}: ${response.body.slice(0, 300)}`)
      const visible = response.body.replace(/<[^>]+>/g, ' ').replace(/&quot;/g, '"')
      for (const sentence of expected) assert.match(visible, sentence, url)
      assert.doesNotMatch(visible, /must NOT|must match|format "|pattern "/, url)
    }
    const csrf = b.csrfOf((await b.get('/console/vendors/new')).body)!
    for (const route of ctx.app.routeTable) {
      if (!route.url.startsWith('/console') || /sign-|setup|revoke/.test(route.url)) continue
      for (const [method, raw] of route.schemas) {
        if (method === 'HEAD') continue
        const schema = (raw ?? {}) as { querystring?: Schema; params?: Schema }
        for (const mode of MODES) {
          const url =
            pathOf(route.url, schema.params, mode) + queryOf(schema.querystring && failing(schema.querystring, mode))
          const response =
            method === 'GET'
              ? await b.get(url)
              : await b.post(url, { _csrf: csrf, name: mode === 'maxLength' ? 'x'.repeat(10_001) : '' })
          assert.ok(response.statusCode < 500, `${method} ${url} ${mode} → ${response.statusCode}`)
          assert.doesNotMatch(
            response.body.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>|<[^>]+>/g, ' '),
            /must NOT|must match|must have required|must be equal to/,
            `${method} ${url} ${mode}`,
          )
        }
      }
    }
  })
})
