/**
 * Prepared statements on PostgreSQL: a table changed under the running service (a migration of a rolling
 * upgrade) invalidates their cached plans; requests still answer, and later ones prepare afresh.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { signedIn, useTestApp } from './helpers/app.ts'
import { engineUnderTest } from './helpers/db.ts'

const skip = engineUnderTest !== 'postgres' && 'PostgreSQL-only: the embedded engine prepares nothing'
const ctx = useTestApp()

test(
  'a column added to vendors under the running service: every list request still answers 200',
  { skip },
  async () => {
    const { api } = await signedIn(ctx)
    const list = async () => (await api({ url: '/api/v3/vendors/?page_size=5' })).statusCode
    // Prepare the page statement on every pooled connection.
    assert.deepEqual(await Promise.all(Array.from({ length: 20 }, list)), Array(20).fill(200))
    await sql`alter table vendors add column prepared_check integer`.execute(ctx.database.db)
    try {
      assert.deepEqual(await Promise.all(Array.from({ length: 20 }, list)), Array(20).fill(200))
      assert.deepEqual(await Promise.all(Array.from({ length: 20 }, list)), Array(20).fill(200))
    } finally {
      await sql`alter table vendors drop column prepared_check`.execute(ctx.database.db)
    }
  },
)
