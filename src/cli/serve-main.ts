/**
 * dist/serve.cjs (scripts/bundle.js): a bare `procurement serve`, which bin/procurement.cjs runs without the
 * command's ES modules (cli/main.ts): they cost a start about 20 ms, and serve needs none of them.
 */
import { exitWithFailure, serveFromEnvironment } from './serve-command.ts'

// What fails here was thrown by the server, which judges its own errors (cli/serve-command.ts).
serveFromEnvironment().catch((error: unknown) => exitWithFailure(error, false))
