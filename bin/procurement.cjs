#!/usr/bin/env node
// The `procurement` command. It runs the compiled JavaScript, bundled into one file, dist/procurement.js
// (built by `npm install`, or `npm run build`; see scripts/bundle.js) when that is at least as new as every
// source file; otherwise — while the sources are being edited — the TypeScript itself, through tsx. An install
// without src/ (the container image, a production copy) always runs the build. A bare `procurement serve` (or
// no command: the same), as `npm start` and the container run it, goes straight to the build's dist/serve.cjs,
// a small script that starts the server, without loading the command's modules first.
// This file is CommonJS: node starts one about 5 ms sooner than an ES module, and every command waits for it.
'use strict'
const fs = require('node:fs')
const path = require('node:path')
const process = require('node:process')
const { pathToFileURL } = require('node:url')

const root = path.join(__dirname, '..')
const compiled = path.join(root, 'dist', 'procurement.js')
const serveScript = path.join(root, 'dist', 'serve.cjs')
const serverBundle = path.join(root, 'dist', 'server.cjs')
const sources = path.join(root, 'src')

// The newest modification time of the files under `dir`. Every start of a checkout pays for this walk (about
// 330 files): one readdir a directory and one stat a file, nothing else.
function newest(dir) {
  let latest = 0
  const pending = [dir]
  while (pending.length > 0) {
    const current = pending.pop()
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = `${current}/${entry.name}`
      if (entry.isDirectory()) pending.push(full)
      else latest = Math.max(latest, fs.statSync(full).mtimeMs)
    }
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
  if (bareServe && fs.existsSync(serveScript) && fs.existsSync(serverBundle)) require(serveScript)
  else void import(pathToFileURL(compiled).href)
} else {
  void import('tsx/esm/api').then(({ register }) => {
    register()
    return import(pathToFileURL(path.join(sources, 'cli', 'main.ts')).href)
  })
}
