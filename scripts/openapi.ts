/**
 * Writes docs/openapi.json from the route schemas (`npm run openapi`). test/openapi.test.ts fails when the
 * committed file differs from what the code generates, so the published contract cannot drift.
 */
import fs from 'node:fs'
import path from 'node:path'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openPglite } from '../src/db/database.ts'

export async function generateOpenApi(): Promise<string> {
  const database = await openPglite()
  const app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    database,
    keys: { signingKey: new Uint8Array(32), pepper: Buffer.alloc(32) },
  })
  await app.ready()
  // Tab-indented: readable and diffable, and under 200 KB.
  const document = JSON.stringify(app.swagger(), null, '\t') + '\n'
  await app.close()
  await database.close()
  return document
}

export const OPENAPI_PATH = path.resolve(import.meta.dirname, '../docs/openapi.json')

if (import.meta.url === `file://${process.argv[1]}`) {
  fs.writeFileSync(OPENAPI_PATH, await generateOpenApi())
  console.log(`wrote ${path.relative(process.cwd(), OPENAPI_PATH)}`)
}
