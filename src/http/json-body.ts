/**
 * The JSON body parser for the whole service: Fastify's own (prototype-poisoning checks included), plus
 * what it lets through. An empty body with a JSON content type is no body (many clients send the header on
 * every request); a charset other than UTF-8 is refused (415) rather than misread; and a key repeated in
 * one object is refused (400 naming it) rather than silently resolved to its last value.
 */
import type { FastifyInstance } from 'fastify'
import { Problem, validationFailed } from '../core/problem.ts'

/** The first key that appears twice in one object of a (valid) JSON text, with its dotted path. */
export function duplicateKey(text: string): string | undefined {
  interface Frame {
    keys: Set<string> | null
    path: string
    index: number
    key: string
  }
  const stack: Frame[] = []
  let expectKey = false
  const child = () => {
    const parent = stack.at(-1)
    if (parent === undefined) return ''
    const segment = parent.keys === null ? String(parent.index) : parent.key
    return parent.path === '' ? segment : `${parent.path}.${segment}`
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      let j = i + 1
      for (let d = text.charCodeAt(j); d !== 0x22; d = text.charCodeAt(j)) j += d === 0x5c ? 2 : 1
      if (expectKey) {
        const frame = stack.at(-1)!
        const key = JSON.parse(text.slice(i, j + 1)) as string
        if (frame.keys!.has(key)) return frame.path === '' ? key : `${frame.path}.${key}`
        frame.keys!.add(key)
        frame.key = key
        expectKey = false
      }
      i = j
    } else if (c === 0x7b || c === 0x5b) {
      stack.push({ keys: c === 0x7b ? new Set() : null, path: child(), index: 0, key: '' })
      expectKey = c === 0x7b
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop()
      expectKey = false
    } else if (c === 0x2c) {
      const frame = stack.at(-1)
      if (frame !== undefined && frame.keys === null) frame.index++
      expectKey = frame !== undefined && frame.keys !== null
    }
  }
  return undefined
}

/**
 * The key the parser refused as prototype poisoning (`__proto__`, or `constructor` holding `prototype`), with
 * its dotted path, when `text` is otherwise valid JSON; undefined when the text is not JSON at all.
 */
export function forbiddenKey(text: string): string | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  const walk = (node: unknown, path: string, depth: number): string | undefined => {
    if (node === null || typeof node !== 'object' || depth > 64) return undefined
    const at = (key: string) => (path === '' ? key : `${path}.${key}`)
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key]
      if (key === '__proto__') return at(key)
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'))
        return at('constructor.prototype')
      const found = walk(child, at(key), depth + 1)
      if (found !== undefined) return found
    }
    return undefined
  }
  return walk(value, '', 0)
}

/** Where a route takes bodies in another media type than JSON, and says so itself (its own error handler). */
const OWN_MEDIA_TYPES = /^\/(oauth|console)(\/|$|\?)/

/**
 * A body in a media type the route does not take gets a 415 that says what to send (DECISIONS: messages are
 * sentences a person acts on), not Fastify's bare "Unsupported Media Type". The hook runs before the error
 * handler of the route's scope, so the SCIM routes (their own error shape) say it too, in their media type.
 */
export function mediaTypeMessages(app: FastifyInstance): void {
  app.addHook('onError', async (request, _reply, error) => {
    if (error.code !== 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || OWN_MEDIA_TYPES.test(request.url)) return
    const sent = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
    const shown = /^[\w.+-]{1,60}\/[\w.+-]{1,60}$/.test(sent) ? sent : 'that media type'
    const wanted = request.url.startsWith('/scim/') ? 'application/scim+json' : 'application/json'
    error.message = `Send the body as ${wanted} (this endpoint does not take ${shown}).`
  })
}

export function jsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase()
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return done(
        new Problem(415, 'Unsupported Media Type', `Send JSON in UTF-8; charset=${charset} is not accepted.`),
        undefined,
      )
    }
    const text = body as string
    if (text.trim() === '') return done(null, undefined)
    void parse(request, text, (error: Error | null, value?: unknown) => {
      if (error !== null) {
        const poisoned = forbiddenKey(text)
        if (poisoned === undefined) return done(error, undefined)
        return done(
          validationFailed(
            { [poisoned]: ['is not allowed as a key; send the body without it'] },
            `The body has the key ${poisoned}, which is not allowed; send the body without it.`,
          ),
          undefined,
        )
      }
      const repeated = typeof value === 'object' && value !== null ? duplicateKey(text) : undefined
      if (repeated !== undefined) {
        return done(
          validationFailed(
            { [repeated]: ['appears more than once in one object'] },
            `The body repeats the key ${repeated}.`,
          ),
          undefined,
        )
      }
      done(null, value)
    })
  })
}
