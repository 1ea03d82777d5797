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
  const bySource = new Map<string, RouteEntry>()
  app.addHook('onRoute', (route) => {
    const source = `^${route.url
      .replace(/\/+$/, '')
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}/?$`
    let entry = bySource.get(source)
    if (entry === undefined) {
      entry = { url: route.url, pattern: new RegExp(source), methods: new Set(), schemas: new Map() }
      bySource.set(source, entry)
      routes.push(entry)
    }
    for (const method of [route.method].flat()) {
      entry.methods.add(method)
      entry.schemas.set(method, route.schema)
      // A GET route answers HEAD too (http/head.ts).
      if (method === 'GET') entry.methods.add('HEAD')
    }
  })
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    const allowed = allowedMethods(routes, path)
    if (allowed.length === 0) return sendProblem(reply, notFound(`No route ${path}.`))
    const allow = allowed.join(', ')
    return sendProblem(reply, notAllowed(`${request.method} is not allowed on ${path}; use ${allow}.`, allow))
  })
}

/** The methods the routes matching `path` answer, sorted (for `Allow`); none for a path no route has. */
export const allowedMethods = (routes: readonly RouteEntry[], path: string): string[] =>
  [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]))].sort()
