/** What start-up leaves for later must still happen, and be the same as before. */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { ValidateFunction } from 'ajv'
import { sql, type KyselyPlugin } from 'kysely'
import { openPglite } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { buildSerializerOnFirstUse, compilePendingSerializers } from '../src/http/serialization.ts'
import { compilePendingValidators, validatorCompiler } from '../src/http/validation.ts'
import { useTestApp } from './helpers/app.ts'
import { testDatabase } from './helpers/db.ts'

const ctx = useTestApp()

describe('request validators, compiled on first use', () => {
  test("every route's validators compile", () => {
    assert.ok(ctx.app.routeTable.length > 20)
    compilePendingValidators()
  })

  test('one compiled on first use validates, coerces and reports as ajv does', () => {
    const query = validatorCompiler({
      schema: { type: 'object', properties: { page: { type: 'integer', minimum: 1, default: 1 } } },
      httpPart: 'querystring',
      method: 'GET',
      url: '/example/',
    }) as ValidateFunction
    // Fastify passes the parent object when ajv asks for it (schemaEnv), so that the whole part can change.
    assert.ok(query.schemaEnv)
    const request = { query: { page: '2' } as Record<string, unknown> }
    const parent = { parentData: request, parentDataProperty: 'query' } as unknown as Parameters<ValidateFunction>[1]
    assert.equal(query(request.query, parent), true)
    assert.deepEqual(request.query, { page: 2 })
    assert.equal(query({ page: '0' }), false)
    assert.equal(query.errors?.[0]?.instancePath, '/page')
    const empty: Record<string, unknown> = {}
    assert.equal(query(empty), true)
    assert.deepEqual(empty, { page: 1 })

    // Integer path ids are checked for canonical digits first, by a function of ours (no schemaEnv).
    const params = validatorCompiler({
      schema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      httpPart: 'params',
      method: 'GET',
      url: '/example/:id/',
    }) as ValidateFunction
    assert.equal(params.schemaEnv, undefined)
    assert.equal(params({ id: '01' }), false)
    assert.match(String(params.errors?.[0]?.message), /decimal digits/)
  })

  test('a schema ajv cannot compile is named with its route', () => {
    validatorCompiler({
      schema: { type: 'object', properties: { id: { $ref: '#/nowhere' } } },
      httpPart: 'body',
      method: 'POST',
      url: '/broken/',
    })
    assert.throws(() => compilePendingValidators(), /POST \/broken\/ \(body\)/)
    compilePendingValidators() // reported once; the rest still compile
  })
})

describe('response serializers, compiled on first use', () => {
  test("every route's serializers compile", () => {
    compilePendingSerializers()
  })

  test('one compiled on first use writes what the schema says, and is compiled once', () => {
    const serialize = buildSerializerOnFirstUse()({
      schema: {
        type: 'object',
        properties: { id: { type: 'integer' }, name: { type: 'string' } },
        additionalProperties: false,
      },
      method: 'GET',
      url: '/example/',
      httpStatus: '200',
    })
    const item = { id: 7, name: 'A "quoted" name', secret: 'not in the schema' }
    assert.equal(serialize(item), '{"id":7,"name":"A \\"quoted\\" name"}')
    assert.equal(serialize({ id: 8, name: 'B' }), '{"id":8,"name":"B"}')
  })

  test('a response schema that does not compile is named with its route and status', () => {
    buildSerializerOnFirstUse()({
      schema: { type: 'object', properties: { id: { $ref: '#/nowhere' } } },
      method: 'GET',
      url: '/broken/',
      httpStatus: '200',
    })
    assert.throws(() => compilePendingSerializers(), /GET \/broken\/ \(200\)/)
    compilePendingSerializers() // reported once
  })
})

describe('the migrations check', () => {
  test('a database that has run every migration is told so in one statement', async () => {
    let statements = 0
    const counting: KyselyPlugin = {
      transformQuery: ({ node }) => (statements++, node),
      transformResult: ({ result }) => Promise.resolve(result),
    }
    assert.deepEqual(await migrateToLatest(ctx.database.db.withPlugin(counting)), [])
    assert.equal(statements, 1)
  })

  test('a new database gets every migration; a migration this code does not know is refused as before', async () => {
    const fresh = await openPglite()
    try {
      const applied = await migrateToLatest(fresh.db)
      assert.ok(applied.length >= 4 && applied[0] === '0001_initial', applied.join())
      assert.deepEqual(await migrateToLatest(fresh.db), [])
    } finally {
      await fresh.close()
    }
    const later = await testDatabase()
    try {
      const now = new Date().toISOString()
      await sql`insert into schema_migrations (name, timestamp) values ('9999_later', ${now})`.execute(later.db)
      await assert.rejects(migrateToLatest(later.db), /previously executed migration 9999_later is missing/)
    } finally {
      await later.close()
    }
  })
})

describe('the embedded database, opened in the background (serve builds the app meanwhile)', () => {
  test('queries wait for the open and the preparing; closed while still opening, the waiting ones fail, the directory is free again', async () => {
    const { loadConfig } = await import('../src/config.ts')
    const { openDatabaseInBackground } = await import('../src/db/database.ts')
    const fs = await import('node:fs')
    const os = await import('node:os')
    const path = await import('node:path')
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-background-'))
    try {
      const config = loadConfig({ DATA_DIR: dir, DEMO_SEED: 'false', LOG_LEVEL: 'silent' })
      const order: string[] = []
      const options = {
        command: 'test',
        prepare: async (database: { db: typeof ctx.database.db }) => {
          await migrateToLatest(database.db)
          order.push('prepared')
        },
      }
      // Opened and prepared: a query asked before that answers after it.
      const first = await openDatabaseInBackground(config, options)
      const asked = sql<{ one: number }>`select 1 as one`
        .execute(first.database.db)
        .then((r) => (order.push('query'), r.rows[0]?.one))
      await first.ready
      assert.equal(await asked, 1)
      // (From the sources a new directory is built and prepared first, then opened and prepared again.)
      assert.deepEqual(order.slice(-2), ['prepared', 'query'])
      await first.database.close()

      // Closed before it is open: the query that waited fails, close returns, and the next open gets the directory.
      const second = await openDatabaseInBackground(config, options)
      const waiting = assert.rejects(sql`select 1`.execute(second.database.db))
      const subscriber = { notify: () => undefined, up: () => undefined, down: () => undefined }
      const listening = assert.rejects(second.database.listen({ some_channel: subscriber }), /closed/)
      await second.database.close()
      await waiting
      await listening
      const third = await openDatabaseInBackground(config, options)
      await third.ready
      assert.equal((await sql<{ one: number }>`select 1 as one`.execute(third.database.db)).rows[0]?.one, 1)
      await third.database.close()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
