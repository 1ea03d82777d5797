// After `tsc -p tsconfig.build.json`: the compiled server and its libraries bundled, dist/procurement.js and
// the chunks it loads (dist/<name>-<HASH>.js), which bin/procurement.cjs runs. Node 20 loads the ~1,600 files of dist/ and node_modules/ one by one (resolve,
// read, compile, link each; TypeBox alone is ~700), which was half the CPU time of a start; one file takes a
// fraction of that. The code is the same: esbuild only joins the modules (no minifying). It renames a top-level
// name only where two modules use the same one; keepNames would restore those, but by calling
// Object.defineProperty on every function as it is created, closures in the hot paths included: that cost a
// fifth of the server's CPU on the vendor list (0.450 -> 0.359 ms a request).
import fs from 'node:fs'
import { fileURLToPath, URL } from 'node:url'
import { build } from 'esbuild'
import { MODULE_WRAPPER } from '../dist/core/code-cache.js'

const dist = new URL('../dist/', import.meta.url)

// Split into chunks along the command's dynamic imports (src/cli/main.ts): `--help` and `--version` load the
// entry file alone (a few kilobytes, not the 4 MB of the server), a command its own module and what that
// needs. The chunks sit beside the entry file, so code that reads files next to itself (the console's assets,
// the embedded template) finds them in dist/ whichever chunk it landed in.
const CHUNK = /^[\w-]+-[A-Z0-9]{8}\.js$/
for (const name of fs.readdirSync(dist)) if (CHUNK.test(name.replace(/\.map$/, ''))) fs.rmSync(new URL(name, dist))

// A build-time edit of a library's source: `find` must occur exactly once in the file, or the build fails
// (the library changed; look again whether the edit is still wanted).
function edit(name, file, find, replace) {
  return {
    name,
    setup(plugin) {
      plugin.onLoad({ filter: file }, async ({ path }) => {
        const source = await fs.promises.readFile(path, 'utf8')
        if (source.split(find).length !== 2) throw new Error(`${path}: no single \`${find.split('\n')[0]}\` to edit`)
        return { contents: source.replace(find, () => replace) }
      })
    },
  }
}

// find-my-way compiles one matcher per static part of every route with `new Function` as routes are added: a
// compile apiece that no code cache keeps, about 3 ms of every start for our routes. `startsWith` from the
// same position answers the same question (the first character, already matched, compared again).
const routerWithoutEval = edit(
  'find-my-way-without-eval',
  /[\\/]node_modules[\\/]find-my-way[\\/]lib[\\/]node\.js$/,
  [
    '  const lines = []',
    '  for (let i = 1; i < prefix.length; i++) {',
    '    const charCode = prefix.charCodeAt(i)',
    '    lines.push(`path.charCodeAt(i + ${i}) === ${charCode}`)',
    '  }',
    "  return new Function('path', 'i', `'use strict'\\nreturn ${lines.join(' && ')}`) // eslint-disable-line",
  ].join('\n'),
  '  return (path, i) => path.startsWith(prefix, i)',
)

// `const name = require('module')` in `file` becomes a module loaded when one of its members is first read.
const requireOnUse = (label, file, name, module) =>
  edit(
    label,
    file,
    `const ${name} = require('${module}')`,
    `const ${name} = new Proxy({}, { get: (_, key) => require('${module}')[key] })`,
  )

// Loaded as they load, used by what the server never does: @fastify/swagger's YAML (the service serves its
// OpenAPI document as JSON) and prom-client's OpenTelemetry exemplars (not enabled). About 3 ms of a start.
const yamlOnUse = requireOnUse(
  'swagger-yaml-on-use',
  /[\\/]node_modules[\\/]@fastify[\\/]swagger[\\/]lib[\\/](spec[\\/](openapi|swagger)[\\/]index|mode[\\/]static)\.js$/,
  'yaml',
  'yaml',
)
const otelOnUse = requireOnUse(
  'prom-client-otel-on-use',
  /[\\/]node_modules[\\/]prom-client[\\/]lib[\\/]metrics[\\/]processCpuTotal\.js$/,
  'OtelApi',
  '@opentelemetry/api',
)

// pino loads its worker-thread transport as it loads; the server never uses a transport (it writes to stdout).
const transportOnUse = edit(
  'pino-transport-on-use',
  /[\\/]node_modules[\\/]pino[\\/]lib[\\/]transport\.js$/,
  "const ThreadStream = require('thread-stream')",
  "const ThreadStream = function (options) { return new (require('thread-stream'))(options) }",
)

// pg asks, as it loads, whether it runs in a Cloudflare Worker: with no `navigator` (Node 20 has none) it makes a
// `Response`, and that global loads Node's fetch (undici), about 10 ms of every start on PostgreSQL, before a
// single connection. The bundles run on Node alone, so there the answer is no, and Node's sockets are used, as
// they always were here. The rest of pg is as published; a pg whose check reads otherwise fails the build.
const pgOnNode = edit(
  'pg-on-node',
  /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/,
  'function isCloudflareRuntime() {',
  'function isCloudflareRuntime() {\n  return false',
)

// What both bundles share. Left to node_modules: packages that read their own files next to their code
// (PGlite's WebAssembly and data, Swagger UI's static pages), the mail library loaded only when SMTP is
// configured, pg's optional native binding, and koffi (its native binary is found beside its code).
const shared = {
  bundle: true,
  plugins: [pgOnNode, routerWithoutEval, transportOnUse, yamlOnUse, otelOnUse],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  sourcesContent: false,
  external: ['@electric-sql/pglite', '@fastify/swagger-ui', 'koffi', 'nodemailer', 'pg-native'],
  logLevel: 'warning',
  // Strings and templates escaped to ASCII; see below for what that leaves.
  charset: 'ascii',
}

await build({
  ...shared,
  entryPoints: { procurement: fileURLToPath(new URL('cli/main.js', dist)) },
  outdir: fileURLToPath(dist),
  splitting: true,
  format: 'esm',
  // @fastify/cookie loads the CommonJS `cookie` with import(): split into a chunk of its own, that namespace
  // would have only `default`, and every Set-Cookie threw ("stringifySetCookie is not a function"); Node's
  // own loader names the exports.
  external: [...shared.external, '@fastify/cookie'],
  // The CommonJS libraries inside call require() for Node's own modules.
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
})

// The server again (src/cli/serve-entry.ts), as one CommonJS file, dist/server.cjs, which `serve` runs
// (src/cli/serve-command.ts) with V8's code cache beside it (src/core/code-cache.ts, made by
// scripts/code-cache.js): Node 20 can cache the bytecode of a script, not of an ES module. `import()` becomes
// `require` (a script's own import() needs an experimental flag in Node 20): each package left outside has a
// CommonJS entry, and @fastify/cookie's import('cookie') is bundled, so it gets the named exports.
// `import.meta` has no meaning in a script: its url is the file's and its resolve is require.resolve's, as
// the modules that read them expect.
const script = {
  ...shared,
  format: 'cjs',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__import_meta_url', 'import.meta.resolve': '__import_meta_resolve' },
  // "use strict" first: after the banner's lines it would be a mere expression, and the modules esbuild hoists
  // to the top level (every ES module: ours, Kysely, TypeBox…) would run in sloppy mode, not as written.
  banner: {
    js:
      '"use strict";\n' +
      "const __import_meta_url = require('node:url').pathToFileURL(__filename).href;\n" +
      "const __import_meta_resolve = (specifier) => require('node:url').pathToFileURL(require.resolve(specifier)).href;",
  },
}
// The server bundle is written already wrapped in the function Node's loader would wrap it in, so that a start
// compiles the file's text as it is (core/code-cache.ts, MODULE_WRAPPER): `require` of it returns nothing.
await build({
  ...script,
  entryPoints: [fileURLToPath(new URL('cli/serve-entry.js', dist))],
  outfile: fileURLToPath(new URL('server.cjs', dist)),
  banner: { js: MODULE_WRAPPER + script.banner.js },
  footer: { js: '})' },
})

// A bare `procurement serve` (src/cli/serve-main.ts) as a small script of its own, dist/serve.cjs, which
// bin/procurement.cjs runs without loading the command's ES modules. It loads dist/server.cjs, which is
// always beside it in the build: the sources' fallback (serve-entry.js) stays outside, not bundled again.
await build({
  ...script,
  entryPoints: [fileURLToPath(new URL('cli/serve-main.js', dist))],
  outfile: fileURLToPath(new URL('serve.cjs', dist)),
  external: [...shared.external, './serve-entry.js'],
})

// V8 keeps a script's source in memory as long as the script lives (the server's whole life) — as one byte a
// character if every character fits in Latin-1, else two: one em dash left in a comment doubled the 4 MB
// bundle to 8 MB of heap. And a start decodes dist/server.cjs from UTF-8 (src/core/code-cache.ts), three times
// faster when it is ASCII. esbuild escapes strings but leaves comments and tagged templates as written, so
// every character past ASCII is escaped here: harmless in a comment, a string, a regular expression or a
// template that reads its cooked text (the console's `html` does); only a tag reading the raw text would see
// the escape (when this was written, no tagged template in the bundle but the console's had text past ASCII).
for (const name of fs
  .readdirSync(dist)
  .filter((n) => ['procurement.js', 'server.cjs', 'serve.cjs'].includes(n) || CHUNK.test(n))) {
  const bundled = new URL(name, dist)
  const source = fs.readFileSync(bundled, 'utf8')
  const ascii = source.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  if (ascii !== source) fs.writeFileSync(bundled, ascii)
}

// The console reads its CSS and script next to the module that serves them, which is now this file.
fs.cpSync(new URL('console/assets', dist), new URL('assets', dist), { recursive: true })
