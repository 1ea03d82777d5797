/**
 * Unknown paths answer 404 and known paths with the wrong method answer 405 with `Allow`, both as problems.
 * (Fastify itself answers 404 to both.)
 */
import type { FastifyInstance } from 'fastify'
import { sendProblem } from './errors.ts'
import { methodNotAllowed as notAllowed, notFound } from '../core/problem.ts'

export interface RouteEntry {
  url: string
  pattern: RegExp
  methods: Set<string>
  /** Each method's route schema (body, querystring, params, headers), as registered. */
  schemas: Map<string, unknown>
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route's path and methods, as registered (used for 405 answers and by tests). */
    routeTable: RouteEntry[]
  }
}

export function methodNotAllowed(app: FastifyInstance): void {
  const routes: RouteEntry[] = []
  app.decorate('routeTable', routes)
  app.addHook('onRoute', (route) => {
    const source = route.url.replace(/\/$/, '').replace(/:[A-Za-z_]+/g, '[^/]+')
    const pattern = new RegExp(`^${source}/?$`)
    let entry = routes.find((r) => r.pattern.source === pattern.source)
    if (entry === undefined) routes.push((entry = { url: route.url, pattern, methods: new Set(), schemas: new Map() }))
    for (const method of [route.method].flat()) {
      entry.methods.add(method)
      entry.schemas.set(method, route.schema)
    }
  })
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    const allowed = new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]))
    if (allowed.size === 0) return sendProblem(reply, notFound(`No route ${path}.`))
    const allow = [...allowed].sort().join(', ')
    return sendProblem(reply, notAllowed(`${request.method} is not allowed on ${path}; use ${allow}.`, allow))
  })
}
