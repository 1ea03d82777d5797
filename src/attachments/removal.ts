/**
 * Removing objects from the S3 store when their last reference goes (DECISIONS: "the last reference deleted
 * deletes them"), even when the store cannot be reached at that moment.
 *
 * Deleting an attachment never waits on the store and never fails because of it: in the delete's transaction
 * the blob row of an S3 object that nothing refers to any more is detached from its content (its `sha256`
 * becomes a removal mark, so an upload of the same bytes meanwhile makes a blob and an object of its own and
 * can never reuse this one), and the attachment is gone (204). After the commit the object is removed and its
 * row with it. When the store does not answer, the marked row stays — the removal is recorded, not dropped —
 * and is tried again after every later delete that reaches the store, and every ten minutes while the service
 * runs (`startRemovalSweep`), until the store confirms; each failure is logged as a warning naming the key.
 * An upload whose object ended up unused (the same bytes were stored meanwhile, or the upload failed after the
 * object was written) is recorded the same way when removing its object fails.
 */
import type { Kysely } from 'kysely'
import type { Config } from '../config.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import { reasonOf, storeOfBlob } from './store.ts'

export const SWEEP_INTERVAL_MS = 10 * 60_000
const SWEEP_BATCH = 20

export interface Log {
  warn(obj: object, msg: string): void
}

export type PendingRemoval = repo.PendingRemoval

/** Removes one recorded object and then its row; false (and a warning) when the store did not confirm. */
export async function removeObject(
  db: Kysely<DB>,
  config: Readonly<Config>,
  pending: PendingRemoval,
  log?: Log,
): Promise<boolean> {
  try {
    const store = await storeOfBlob(config, { store: 's3' })
    await store.remove!(pending.s3_key)
  } catch (error) {
    log?.warn(
      { s3_key: pending.s3_key, reason: reasonOf(error) },
      'the file store did not remove an unused object; the removal is recorded and will be tried again',
    )
    return false
  }
  await repo.forgetRemoval(db, pending.tenant_id, pending.id)
  return true
}

/**
 * Removes this object (when given) and then, if the store answered, up to `SWEEP_BATCH` others still
 * pending. Returns how many removals are still pending among those tried.
 */
export async function removeObjects(
  db: Kysely<DB>,
  config: Readonly<Config>,
  first: PendingRemoval | undefined,
  log?: Log,
): Promise<number> {
  if (first !== undefined && !(await removeObject(db, config, first, log))) return 1
  for (const pending of await repo.pendingRemovals(db, SWEEP_BATCH)) {
    if (!(await removeObject(db, config, pending, log))) return 1
  }
  return 0
}

/**
 * Removes an object written for an upload that ended up not referring to it; when the store does not answer,
 * records the removal for the sweep rather than leave the object behind unnoticed.
 */
export async function discardUploaded(
  db: Kysely<DB>,
  config: Readonly<Config>,
  tenantId: number,
  key: string,
  size: number,
): Promise<void> {
  try {
    const store = await storeOfBlob(config, { store: 's3' })
    await store.remove!(key)
  } catch {
    await repo.recordRemoval(db, tenantId, key, size).catch(() => undefined)
  }
}

/** Retries recorded removals every `intervalMs` while the service runs; returns a stop function. */
export function startRemovalSweep(
  db: Kysely<DB>,
  config: Readonly<Config>,
  log: Log & { error(obj: object, msg: string): void },
  intervalMs = SWEEP_INTERVAL_MS,
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve()
  const timer = setInterval(() => {
    running = running
      .then(() => removeObjects(db, config, undefined, log))
      .catch((error: unknown) => log.error({ err: error }, 'the sweep of unused file store objects failed'))
  }, intervalMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
