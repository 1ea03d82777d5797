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
 * An upload to S3 records its object's key before writing it (an upload intent, committed first), and the
 * transaction that stores the attachment deletes the intent. An object that ends up unused (the same bytes were
 * stored meanwhile, the upload failed after the object was written) has its intent turned into a recorded
 * removal at once. The intent of an upload that never committed (the process killed between the object and the
 * commit, a commit that failed) is taken by the sweep once it is an hour old.
 */
import type { Kysely } from 'kysely'
import type { Config } from '../config.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import { reasonOf, storeOfBlob } from './store.ts'

export const SWEEP_INTERVAL_MS = 10 * 60_000
/**
 * How old an upload intent must be before the sweep takes it for an upload that will never finish. An upload
 * takes its intent in the transaction that stores it, seconds after writing the object. If it is still
 * running when its intent is swept, it is refused with a 503 and leaves nothing behind.
 */
export const INTENT_GRACE_MS = 60 * 60_000
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
  for (const left of await repo.staleUploadIntents(db, new Date(Date.now() - INTENT_GRACE_MS), SWEEP_BATCH)) {
    const removal = await repo.abandonUploadIntent(db, left.tenant_id, left.id)
    if (removal !== undefined && !(await removeObject(db, config, removal, log))) return 1
  }
  return 0
}

/**
 * An upload's object that is not used (the same bytes were stored meanwhile, or the upload failed after the
 * object was written): its intent becomes a recorded removal and the object is removed, or stays recorded when
 * the store does not answer. When the database does not answer either, the intent stays, and the sweep
 * abandons it once it is INTENT_GRACE_MS old.
 */
export async function abandonIntent(
  db: Kysely<DB>,
  config: Readonly<Config>,
  intent: PendingRemoval,
  log?: Log,
): Promise<void> {
  const removal = await repo.abandonUploadIntent(db, intent.tenant_id, intent.id).catch(() => undefined)
  if (removal !== undefined) await removeObject(db, config, removal, log)
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
