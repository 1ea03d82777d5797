/**
 * What `serve` needs of the server, in one module: bundled as dist/server.cjs (scripts/bundle.js) and run with
 * V8's code cache (core/code-cache.ts). The command reads the settings with it, and, as the bundle has its own
 * copies of the error classes, asks it which of its errors an operator can act on.
 */
export { loadConfig } from '../config.ts'
export { serve } from '../server.ts'
export { operatorFacing } from './operator-facing.ts'
