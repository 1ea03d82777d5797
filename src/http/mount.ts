/**
 * A part of the service served by a Fastify app of its own, built when it is first needed rather than at
 * start. app.ts mounts the console and SCIM this way: registering their routes cost a start on PostgreSQL
 * about 20 ms (their modules are still loaded at start), and a service that only answers the API never needs
 * them.
 *
 * Every request whose path is `prefix` or below it (as the router reads the path: see `pathOf`) is handed, by
 * this app's first `onRequest` hook and before any other, to the mounted app: the raw request and response,
 * body unread, as if the mounted app had received them from the server. The mounted app has the same edges as
 * this one (http/shell.ts), so it answers as it would as part of this app. This app only notes the hand-off:
 * its own metrics and request log leave the request to the mounted app (`handedOff`). A path this app's router
 * refuses before any hook (one that is not valid percent-encoding) is handed off the same way by its
 * `frameworkErrors`.
 *
 * The mounted app is built by `prepareMounts()` (the server calls it a moment after it listens; tests at
 * once) or by its first request, whichever comes first; its routes then join this app's `routeTable`. If
 * building it fails, this app answers the request with a 503 problem (and logs the error, and the request as
 * any other); the next request tries again. It is closed with this app.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { serviceUnavailable, type Problem } from '../core/problem.ts'
import { sendProblem } from './errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Builds every app mounted on this one (http/mount.ts) that is not built yet; resolves when they are ready. */
    prepareMounts(): Promise<void>
  }
}

const HANDED_OFF = Symbol('handed off to a mounted app')
const SLASH = 0x2f
const QUESTION_MARK = 0x3f

/** This app's request object (not the raw request, which the mounted app's request shares) carries the mark. */
type Marked = FastifyRequest & { [HANDED_OFF]?: true }

/**
 * The path a request target names, as the router reads it: without the scheme and authority of an
 * absolute-form target (`GET http://host/console/`), without the query, percent-escapes of characters
 * other than reserved ones decoded (`/%63onsole/` is `/console/`). Not valid percent-encoding: as it is.
 */
function pathOf(target: string): string {
  const path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split('?')[0]!
  try {
    return decodeURI(path)
  } catch {
    return path
  }
}

/**
 * Whether the request target `target` names `prefix` or a path below it. Every request of the app asks this
 * of each mount: a plain path (no escapes, not absolute-form) is answered without `pathOf`.
 */
export const isUnder = (prefix: string, target: string): boolean => {
  if (target.charCodeAt(0) === SLASH && !target.includes('%')) {
    if (!target.startsWith(prefix)) return false
    const next = target.charCodeAt(prefix.length)
    return Number.isNaN(next) || next === SLASH || next === QUESTION_MARK
  }
  const path = pathOf(target)
  return path === prefix || path.startsWith(`${prefix}/`)
}

/** Whether this request was handed to a mounted app, which answers, logs and counts it. */
export const handedOff = (request: FastifyRequest): boolean => (request as Marked)[HANDED_OFF] === true

export interface Mount {
  /** Hands `request` to the mounted app (for a `frameworkErrors` handler: see above). */
  handOff(request: FastifyRequest, reply: FastifyReply): void
}

/** Each app's mounted apps, by their `prepare`. */
const mounted = new WeakMap<FastifyInstance, Array<() => Promise<FastifyInstance>>>()

/** Each app's mounts, as its one hand-off hook checks them: every request of the app asks each, in order. */
type HandOff = (request: FastifyRequest, reply: FastifyReply, refuse: (problem: Problem) => void) => void
const mountsOf = new WeakMap<FastifyInstance, { prefix: string; handOff: HandOff }[]>()

class Closed extends Error {}

/**
 * Mounts the app `build` makes at `prefix`. Call it before adding any other `onRequest` hook: the hand-off
 * must come first.
 */
export function mount(app: FastifyInstance, prefix: string, build: () => Promise<FastifyInstance>): Mount {
  let built: Promise<FastifyInstance> | undefined
  let closed = false
  const prepare = (): Promise<FastifyInstance> => {
    if (closed) return Promise.reject(new Closed(`the app mounted at ${prefix} is closed`))
    built ??= (async () => {
      const sub = await build()
      try {
        await sub.ready()
      } catch (error) {
        await sub.close().catch(() => undefined)
        throw error
      }
      app.routeTable.push(...sub.routeTable)
      return sub
    })().catch((error: unknown) => {
      built = undefined
      throw error
    })
    return built
  }

  /**
   * Hands the request over once the mounted app is ready. If it cannot be built, `refuse` answers from this
   * app — a 503 problem, with this app's headers, log line and count — and the error is logged.
   */
  const handOff = (request: FastifyRequest, reply: FastifyReply, refuse: (problem: Problem) => void): void => {
    prepare()
      .then(
        (sub) => {
          const marked: Marked = request
          marked[HANDED_OFF] = true
          reply.hijack()
          sub.routing(request.raw, reply.raw)
        },
        (error: unknown) => {
          if (!(error instanceof Closed))
            request.log.error({ err: error }, `the app mounted at ${prefix} failed to start`)
          refuse(
            serviceUnavailable(
              'This part of the service could not start. Try again in a moment; if it keeps happening, tell your administrator.',
            ),
          )
        },
      )
      .catch((error: unknown) => request.log.error({ err: error }, `the app mounted at ${prefix} failed`))
  }

  // One hook for all of the app's mounts (not one per mount): the API's requests pass one hook, not two.
  let mounts = mountsOf.get(app)
  if (mounts === undefined) {
    const all: { prefix: string; handOff: HandOff }[] = (mounts = [])
    mountsOf.set(app, all)
    app.addHook('onRequest', (request, reply, done) => {
      const target = request.url
      for (const each of all)
        if (isUnder(each.prefix, target)) {
          each.handOff(request, reply, (problem) => done(problem))
          return
        }
      done()
    })
  }
  mounts.push({ prefix, handOff })
  const preparers = mounted.get(app)
  if (preparers === undefined) {
    mounted.set(app, [prepare])
    app.decorate('prepareMounts', async () => {
      await Promise.all(mounted.get(app)!.map((each) => each()))
    })
  } else preparers.push(prepare)
  app.addHook('onClose', async () => {
    closed = true
    await (await built?.catch(() => undefined))?.close()
  })
  return { handOff: (request, reply) => handOff(request, reply, (problem) => void sendProblem(reply, problem)) }
}
