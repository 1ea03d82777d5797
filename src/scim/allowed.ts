/**
 * The methods each SCIM path answers, learnt from the routes as they are declared: a known path asked with
 * another method is 405 with an `Allow` header (RFC 9110 §15.5.6), not 404.
 */
import type { FastifyInstance } from 'fastify'

/** Records the plugin's routes; `allowedAt(path)` is the methods of the route matching `path`, or []. */
export function routeMethods(app: FastifyInstance): (path: string) => string[] {
  const routes: { source: string; pattern: RegExp; methods: Set<string> }[] = []
  app.addHook('onRoute', (route) => {
    const source = `^${route.url
      .replace(/\/+$/, '')
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}/?$`
    const existing = routes.find((r) => r.source === source)
    const methods = existing?.methods ?? new Set<string>()
    for (const method of [route.method].flat()) {
      methods.add(method)
      // A GET route answers HEAD too (http/head.ts).
      if (method === 'GET') methods.add('HEAD')
    }
    if (existing === undefined) routes.push({ source, pattern: new RegExp(source), methods })
  })
  return (path) => {
    const found = routes.find((r) => r.pattern.test(path))
    return found === undefined ? [] : [...found.methods].sort()
  }
}
