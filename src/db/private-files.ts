/**
 * Every file under DATA_DIR stays 0600 (folders 0700), whoever writes it. PGlite's file system (Emscripten's
 * NODEFS) makes files through Node's `fs` and then sets the mode PostgreSQL's own file system layer asked
 * for with `chmodSync` — 0666 for files such as `pg_internal.init`, written while serving — so neither the
 * process umask nor a sweep at start keeps them private. Here the `fs` functions that set a mode are wrapped,
 * once per process, to take the group and world bits away for paths inside a registered data folder (and
 * nowhere else); `syncBuiltinESMExports` makes the ESM view of `fs` see the same functions.
 */
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import path from 'node:path'

const folders = new Set<string>()
let installed = false

const inside = (target: unknown): boolean => {
  if (typeof target !== 'string' && !(target instanceof URL) && !Buffer.isBuffer(target)) return false
  const text = target instanceof URL ? target.pathname : target.toString()
  const full = path.resolve(text)
  for (const folder of folders) if (full === folder || full.startsWith(folder + path.sep)) return true
  return false
}
/** The mode with the group and world bits taken away. */
const privateMode = (mode: fs.Mode | undefined, fallback: number): number =>
  (mode === undefined ? fallback : typeof mode === 'string' ? parseInt(mode, 8) : mode) & ~0o077

function install(): void {
  if (installed) return
  installed = true
  const { chmodSync, mkdirSync, writeFileSync, openSync } = fs
  fs.chmodSync = (target, mode) => chmodSync(target, inside(target) ? privateMode(mode, 0o600) : mode)
  fs.mkdirSync = (target: fs.PathLike, options?: fs.MakeDirectoryOptions | fs.Mode | null) => {
    if (!inside(target)) return mkdirSync(target, options as fs.MakeDirectoryOptions)
    const given = typeof options === 'object' && options !== null ? options : { mode: options ?? undefined }
    return mkdirSync(target, { ...given, mode: privateMode(given.mode, 0o700) })
  }
  fs.writeFileSync = (target, data, options) => {
    if (typeof target === 'number' || !inside(target)) return writeFileSync(target, data, options)
    const given = typeof options === 'object' && options !== null ? options : { encoding: options ?? undefined }
    return writeFileSync(target, data, { ...given, mode: privateMode(given.mode, 0o600) })
  }
  fs.openSync = (target: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode | null) =>
    openSync(target, flags ?? 'r', inside(target) ? privateMode(mode ?? undefined, 0o600) : mode)
  syncBuiltinESMExports()
}

/** Keeps every file and folder this process makes under `dir` private from now on. */
export function keepPrivate(dir: string): void {
  folders.add(path.resolve(dir))
  install()
}
