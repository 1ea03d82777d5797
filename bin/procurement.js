#!/usr/bin/env node
// The `procurement` command. It runs the compiled JavaScript, bundled into one file, dist/procurement.js
// (built by `npm install`, or `npm run build`; see scripts/bundle.js) when that is at least as new as every
// source file; otherwise — while the sources are being edited — the TypeScript itself, through tsx. An install
// without src/ (the container image, a production copy) always runs the build. A bare `procurement serve` (or
// no command: the same), as `npm start` and the container run it, goes straight to the build's dist/serve.cjs,
// a small script that starts the server, without loading the command's modules first.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import process from 'node:process'
import { fileURLToPath, URL } from 'node:url'

const compiled = new URL('../dist/procurement.js', import.meta.url)
const serveScript = new URL('../dist/serve.cjs', import.meta.url)
const sources = new URL('../src/', import.meta.url)

function newest(dir) {
  let latest = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const path = new URL(entry.name + (entry.isDirectory() ? '/' : ''), dir)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : fs.statSync(path).mtimeMs)
  }
  return latest
}

function compiledIsFresh() {
  if (!fs.existsSync(sources)) return true
  try {
    return fs.statSync(compiled).mtimeMs >= newest(sources)
  } catch {
    return false
  }
}

const args = process.argv.slice(2)
const bareServe = args.length === 0 || (args.length === 1 && args[0] === 'serve')

if (compiledIsFresh()) {
  if (bareServe && fs.existsSync(serveScript)) createRequire(import.meta.url)(fileURLToPath(serveScript))
  else await import(compiled.href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
}
