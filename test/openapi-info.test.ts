/**
 * The OpenAPI document tells the truth about itself (DECISIONS, "Daily use of the console"): the project's
 * licence (Apache-2.0) and version (package.json's), a description of every tag its operations use, a 4xx
 * answer for `GET /`, and every status `PUT /api/v3/purchase-orders/{id}/` can answer (428 without If-Match).
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'
import { useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

interface Operation {
  tags?: string[]
  responses: Record<string, unknown>
}

test('info, tags and the declared answers', async () => {
  const document = (await ctx.app.inject('/openapi.json')).json<{
    info: { version: string; license: { name: string; identifier?: string }; description: string }
    tags: { name: string; description: string }[]
    paths: Record<string, Record<string, Operation>>
  }>()
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  assert.equal(document.info.version, pkg.version)
  assert.equal(document.info.license.identifier, 'Apache-2.0')
  assert.equal(document.info.license.name, 'Apache-2.0')
  assert.doesNotMatch(JSON.stringify(document.info), /MIT/)

  const described = new Set(document.tags.map((t) => t.name))
  const used = new Set(
    Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])),
  )
  for (const tag of used) assert.ok(described.has(tag), `the tag ${tag} is described in the document's tags`)
  for (const tag of ['requests', 'approvals', 'purchase-orders', 'bills', 'receipts']) assert.ok(described.has(tag))
  for (const t of document.tags) assert.ok(t.description.length > 0, `${t.name} says what it holds`)

  const index = document.paths['/']!.get!
  assert.ok(
    Object.keys(index.responses).some((s) => s.startsWith('4')),
    'GET / declares a 4xx answer',
  )
  const put = document.paths['/api/v3/purchase-orders/{id}/']!.put!
  for (const status of ['200', '400', '404', '409', '412', '428'])
    assert.ok(status in put.responses, `PUT /api/v3/purchase-orders/{id}/ declares ${status}`)
  assert.ok(document.paths['/api/v3/requests/{id}/approval-preview/']?.get, 'the chain preview is documented')
})
