// After `tsc -p tsconfig.build.json`: the databases a first embedded start copies into DATA_DIR instead of
// building one (src/db/database.ts, openEmbedded): dist/embedded-template/, migrated and empty, and
// dist/embedded-template-demo/, the same with the demo tenant seeded (src/seed/demo-template.ts), for the
// default first start. Building one means PostgreSQL's initdb inside PGlite: about 3 s of CPU and a peak of some
// 900 MB of resident memory — more than a 512 MB container allows — and the demo seed some 560 statements
// through the services, where copying these files takes a fraction of a second and opening them costs what
// any restart costs. Each is made in a scratch folder and renamed into place, so an interrupted build leaves
// no half-made template.
import fs from 'node:fs'
import { fileURLToPath, URL } from 'node:url'
import { openPglite } from '../dist/db/database.js'
import { migrateToLatest } from '../dist/db/migrate.js'
import { seedDemo } from '../dist/seed/demo.js'
import { markBuiltDemo } from '../dist/seed/demo-template.js'

const template = fileURLToPath(new URL('../dist/embedded-template', import.meta.url))
const demoTemplate = `${template}-demo`

async function make(dir, work, from) {
  const partial = `${dir}.partial`
  fs.rmSync(partial, { recursive: true, force: true })
  if (from !== undefined) fs.cpSync(from, partial, { recursive: true })
  const database = await openPglite({ dataDir: partial })
  try {
    await work(database.db)
  } finally {
    await database.close()
  }
  fs.rmSync(dir, { recursive: true, force: true })
  fs.renameSync(partial, dir)
}

await make(template, (db) => migrateToLatest(db))
// From a copy of the empty one, as a first start would make it: no second initdb.
await make(
  demoTemplate,
  async (db) => {
    await seedDemo(db)
    await markBuiltDemo(db)
  },
  template,
)
