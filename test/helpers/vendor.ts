/**
 * Libraries of many small files, joined into one file each for the test processes. Under tsx every module a
 * test file loads is resolved and loaded through tsx's hooks, which Node 20 runs on a thread of their own: a
 * round trip per module. TypeBox is ~700 modules and Kysely ~280, and loading them cost each test file about
 * 0.8 s of CPU of its ~4 s of set-up (85 files: a minute of the suite's CPU). Joined by esbuild (the same
 * code, not minified; the versions installed) they load as three files.
 *
 * The test processes find them through a tsconfig of their own (`TSX_TSCONFIG_PATH`, its `paths`), which
 * tsx reads; the code under test still says `import … from 'kysely'`. The servers and commands that tests
 * start inherit the variable, so they load the same copies. Made once per install (the key is the installed
 * versions), in .cache/.
 */
import fs from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

const root = path.resolve(import.meta.dirname, '../..')

/** Entry name → the import the code under test writes. */
const ENTRIES = { typebox: 'typebox', 'typebox-value': 'typebox/value', kysely: 'kysely' } as const

function installedVersion(name: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
    version: string
  }
  return manifest.version
}

/** Builds the joined libraries unless this install's are there; returns the tsconfig that maps to them. */
export async function vendorTsconfig(): Promise<string> {
  const key = ['typebox', 'kysely'].map((name) => `${name}-${installedVersion(name)}`).join('_')
  const dir = path.join(root, '.cache', `vendor-${key}`)
  const tsconfig = path.join(dir, 'tsconfig.json')
  if (fs.existsSync(tsconfig)) return tsconfig
  const partial = `${dir}.${process.pid}.partial`
  fs.rmSync(partial, { recursive: true, force: true })
  await build({
    entryPoints: ENTRIES,
    outdir: partial,
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  })
  const base = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8')) as {
    compilerOptions: { paths?: Record<string, string[]> }
  }
  const up = (p: string) => path.relative(dir, path.join(root, p))
  const paths: Record<string, string[]> = {}
  for (const [name, targets] of Object.entries(base.compilerOptions.paths ?? {})) paths[name] = targets.map(up)
  for (const [entry, specifier] of Object.entries(ENTRIES)) paths[specifier] = [`./${entry}.mjs`]
  const config = { extends: up('tsconfig.json'), compilerOptions: { paths } }
  fs.writeFileSync(path.join(partial, 'tsconfig.json'), `${JSON.stringify(config, null, 2)}\n`)
  try {
    fs.renameSync(partial, dir)
  } catch (error) {
    // Another run made it first: theirs is the same.
    fs.rmSync(partial, { recursive: true, force: true })
    if (!fs.existsSync(tsconfig)) throw error
  }
  return tsconfig
}
