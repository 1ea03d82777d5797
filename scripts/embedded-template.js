// After `tsc -p tsconfig.build.json`: a migrated, empty embedded database, dist/embedded-template/, which the
// first embedded start copies into DATA_DIR instead of building one (src/db/database.ts, openEmbedded).
// Building one means PostgreSQL's initdb inside PGlite: about 3 s of CPU and a peak of some 900 MB of resident
// memory — more than a 512 MB container allows — where copying these files takes milliseconds and opening
// them costs what any restart costs. Made in a scratch folder and renamed into place, so an interrupted build
// leaves no half-made template.
import fs from 'node:fs'
import { fileURLToPath, URL } from 'node:url'
import { openPglite } from '../dist/db/database.js'
import { migrateToLatest } from '../dist/db/migrate.js'

const template = fileURLToPath(new URL('../dist/embedded-template', import.meta.url))
const partial = `${template}.partial`

fs.rmSync(partial, { recursive: true, force: true })
const database = await openPglite({ dataDir: partial })
try {
  await migrateToLatest(database.db)
} finally {
  await database.close()
}
fs.rmSync(template, { recursive: true, force: true })
fs.renameSync(partial, template)
