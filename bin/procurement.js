#!/usr/bin/env node
// The `procurement` command. It runs the compiled JavaScript, bundled into one file, dist/procurement.js
// (built by `npm install`, or `npm run build`; see scripts/bundle.js) when that is at least as new as every
// source file; otherwise — while the sources are being edited — the TypeScript itself, through tsx. An install
// without src/ (the container image, a production copy) always runs the build.
import fs from 'node:fs'
import { URL } from 'node:url'

const compiled = new URL('../dist/procurement.js', import.meta.url)
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

if (compiledIsFresh()) {
  await import(compiled.href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
}
