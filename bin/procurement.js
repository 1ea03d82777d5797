#!/usr/bin/env node
// The `procurement` command. The source is TypeScript, loaded through tsx so that no build step is needed.
import { register } from 'tsx/esm/api'

register()
await import('../src/cli/main.ts')
