// After `tsc -p tsconfig.build.json`: the files the compiled code reads next to itself (the console's CSS and script).
import fs from 'node:fs'
import { URL } from 'node:url'

fs.cpSync(new URL('../src/console/assets', import.meta.url), new URL('../dist/console/assets', import.meta.url), {
  recursive: true,
})
