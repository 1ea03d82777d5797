/**
 * The app's subscription to the database's change notifications (db/listener.ts), one subscriber per
 * channel — the caches that the notifications keep true — closed with the app. A successful write (API,
 * token revocation, console; not a route marked `accessNeutral`) is answered only after the fence: whatever
 * it changed has reached this process's caches, so the writer's next request — here — already sees it.
 * Other processes see it as their notifications arrive, normally within milliseconds.
 */
import type { FastifyInstance } from 'fastify'
import type { Database } from '../db/database.ts'
import type { Subscribers, Subscription } from '../db/listener.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * This route's writes change nothing a cache holds (vendors, locations, issuing a token), so its
     * answers need not wait for the fence.
     */
    accessNeutral?: boolean
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Subscribes as the app is built, without waiting for the database: `serve` builds the app while the embedded
 * database is still opening (db/database.ts, `openDatabaseInBackground`). The app is not ready until the
 * subscription is: a LISTEN that fails fails the start, as it always has. The subscription is the app's, and
 * closed with it; `fenceWrites` makes an app's writes wait for it (this app's, and a mounted app's).
 */
export function subscribeToChanges(
  app: FastifyInstance,
  database: Database,
  subscribers: Subscribers,
): Promise<Subscription> {
  const subscription = database.listen(subscribers)
  // Reported by the onReady hook below; until then a failure is not an unhandled rejection.
  subscription.catch(() => undefined)
  app.addHook('onReady', async () => {
    await subscription
  })
  app.addHook('onClose', async () => {
    for (const subscriber of Object.values(subscribers)) subscriber.down()
    await (await subscription.catch(() => undefined))?.close()
  })
  return subscription
}

/** A successful write on `app` is answered once its change has reached this process's caches (see above). */
export function fenceWrites(app: FastifyInstance, subscription: Promise<Subscription>): void {
  app.addHook('onSend', async (request, reply) => {
    if (SAFE_METHODS.has(request.method) || reply.statusCode >= 400) return
    if (request.routeOptions.config.accessNeutral !== true) await (await subscription).fence()
  })
}
