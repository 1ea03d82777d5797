/**
 * The garbage of large transfers, collected as it is made. Moving a file through the service allocates
 * buffers outside V8's heap several times the file's size (socket reads, the database driver's messages),
 * each held by a small object in the young generation. V8 times its collections by its own heap, which these
 * hardly fill, so the dead buffers of a 25 MB upload and download piled up to some 40 MB before anything
 * collected them. Here, after every STEP_BYTES moved by all transfers together, one young-generation
 * collection (a scavenge: about a millisecond) frees them. Measured by `npm run bench -- attachments`
 * (docs/benchmarks.md, "Attachments' memory").
 */
import { collector } from './gc.ts'

const STEP_BYTES = 4 * 1024 * 1024

let moved = 0

/** Counts `bytes` of a file moved through the process; collects the young generation every STEP_BYTES. */
export function transferred(bytes: number): void {
  moved += bytes
  if (moved < STEP_BYTES) return
  moved = 0
  collector()?.({ type: 'minor', execution: 'sync' })
}
