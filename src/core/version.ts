/**
 * The service's version, from its package.json: found by walking up from this module, which is src/core/
 * under tsx, dist/core/ after tsc and dist/ in the bundle. Read once, at first use.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const PACKAGE_NAME = 'procurement-service'
let cached: string | undefined

export function serviceVersion(): string {
  if (cached !== undefined) return cached
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: unknown
        version?: unknown
      }
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return (cached = pkg.version)
    } catch {
      // no package.json here, or not ours: look one folder up
    }
    const parent = path.dirname(dir)
    if (parent === dir) return (cached = 'unknown')
    dir = parent
  }
}
