/**
 * Whether a stream of chunks is all UTF-8, checked without decoding it. A streaming TextDecoder would make a
 * string of every chunk only to throw it away — as many bytes of garbage as the upload, which is what grew
 * the server's heap during a large one. node:buffer's `isUtf8` checks bytes in place; a sequence cut by the end
 * of a chunk is carried over and checked with the start of the next.
 */
import { isUtf8 } from 'node:buffer'

const EMPTY = Buffer.alloc(0)

/** The length of the sequence a lead byte starts (1 for bytes that cannot start one: `isUtf8` refuses them). */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2
  if (lead >= 0xe0 && lead <= 0xef) return 3
  if (lead >= 0xf0 && lead <= 0xf4) return 4
  return 1
}

/** Where a sequence that `chunk` ends before finishing starts; `chunk.length` when none does. */
function cutAt(chunk: Buffer, start: number): number {
  for (let i = chunk.length - 1; i >= Math.max(start, chunk.length - 3); i--) {
    const byte = chunk[i]!
    if ((byte & 0xc0) === 0x80) continue // a continuation byte: look further back for its lead
    return byte >= 0xc0 && i + sequenceLength(byte) > chunk.length ? i : chunk.length
  }
  return chunk.length
}

export class Utf8Check {
  private carried: Buffer = EMPTY
  private valid = true

  push(chunk: Buffer): void {
    if (!this.valid) return
    let start = 0
    if (this.carried.length > 0) {
      const length = sequenceLength(this.carried[0]!)
      const piece = Buffer.concat([this.carried, chunk.subarray(0, length - this.carried.length)])
      start = piece.length - this.carried.length
      if (piece.length < length) {
        this.carried = piece
        return
      }
      this.carried = EMPTY
      if (!isUtf8(piece)) {
        this.valid = false
        return
      }
    }
    const end = cutAt(chunk, start)
    if (!isUtf8(chunk.subarray(start, end))) this.valid = false
    else if (end < chunk.length) this.carried = Buffer.from(chunk.subarray(end))
  }

  /** Whether everything pushed was UTF-8 (a sequence left unfinished at the end is not). */
  end(): boolean {
    return this.valid && this.carried.length === 0
  }
}
