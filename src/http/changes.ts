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

export async function subscribeToChanges(
  app: FastifyInstance,
  database: Database,
  subscribers: Subscribers,
): Promise<Subscription> {
  const subscription = await database.listen(subscribers)
  app.addHook('onClose', async () => {
    for (const subscriber of Object.values(subscribers)) subscriber.down()
    await subscription.close()
  })
  app.addHook('onSend', async (request, reply) => {
    if (SAFE_METHODS.has(request.method) || reply.statusCode >= 400) return
    if (request.routeOptions.config.accessNeutral !== true) await subscription.fence()
  })
  return subscription
}
