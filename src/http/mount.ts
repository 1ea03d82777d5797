/**
 * A part of the service served by a Fastify app of its own, built when it is first needed rather than at
 * start (app.ts mounts the console this way: its hundred routes and their modules cost a start on PostgreSQL
 * about 15 ms, and a service that only answers the API never needs them).
 *
 * Every request whose path is `prefix` or below it is handed, by this app's first `onRequest` hook and before
 * any other, to the mounted app: the raw request and response, body unread, as if the mounted app had
 * received them from the server. The mounted app has the same edges as this one (http/shell.ts), so it
 * answers exactly as it would as part of this app. This app only counts the request as handed off: its own
 * metrics and request log leave it to the mounted app (`handedOff`). A path this app's router refuses before
 * any hook (one that is not valid percent-encoding) is handed off the same way by its `frameworkErrors`.
 *
 * The mounted app is built by `prepareMounts()` (the server calls it a moment after it listens; tests at
 * once) or by its first request, whichever comes first; its routes then join this app's `routeTable`. If
 * building it fails, its requests get 503 and the error is logged; the next request tries again. It is
 * closed with this app.
 */
import type { ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    /** Builds every app mounted on this one (http/mount.ts) that is not built yet; resolves when they are ready. */
    prepareMounts(): Promise<void>
  }
}

const HANDED_OFF = Symbol('handed off to a mounted app')

/** This app's request object (not the raw request, which the mounted app's request shares) carries the mark. */
type Marked = FastifyRequest & { [HANDED_OFF]?: true }

/** Whether `path` (a request target, query and all) is `prefix` or below it. */
export const isUnder = (prefix: string, path: string): boolean =>
  path.startsWith(prefix) && ['', '/', '?'].includes(path.charAt(prefix.length))

/** Whether this request was handed to a mounted app, which answers, logs and counts it. */
export const handedOff = (request: FastifyRequest): boolean => (request as Marked)[HANDED_OFF] === true

export interface Mount {
  /** Hands `request` to the mounted app (for a `frameworkErrors` handler: see above). */
  handOff(request: FastifyRequest, reply: FastifyReply): void
}

/** Each app's mounted apps, by their `prepare`. */
const mounted = new WeakMap<FastifyInstance, Array<() => Promise<FastifyInstance>>>()

const UNAVAILABLE =
  'This part of the service could not start. Try again in a moment; if it keeps happening, tell your administrator.'

/**
 * Mounts the app `build` makes at `prefix`. Call it before adding any other `onRequest` hook: the hand-off
 * must come first.
 */
export function mount(app: FastifyInstance, prefix: string, build: () => Promise<FastifyInstance>): Mount {
  let built: Promise<FastifyInstance> | undefined
  let closed = false
  const prepare = (): Promise<FastifyInstance> => {
    if (closed) return Promise.reject(new Error(`the app mounted at ${prefix} is closed`))
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

  const handOff = (request: FastifyRequest, reply: FastifyReply): void => {
    const marked: Marked = request
    marked[HANDED_OFF] = true
    reply.hijack()
    prepare().then(
      (sub) => sub.routing(request.raw, reply.raw),
      (error: unknown) => {
        request.log.error({ err: error }, `the app mounted at ${prefix} failed to start`)
        unavailable(reply.raw)
      },
    )
  }

  app.addHook('onRequest', (request, reply, done) => {
    if (isUnder(prefix, request.url)) handOff(request, reply)
    else done()
  })
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
  return { handOff }
}

function unavailable(response: ServerResponse): void {
  if (response.headersSent) return
  response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' }).end(UNAVAILABLE)
}
