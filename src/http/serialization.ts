/**
 * Response serializers, compiled when first used. Fastify compiles one fast-json-stringify function per
 * route and status when the route is registered: some 100 of them, about 1.6 MB of generated source and its
 * code kept for the server's whole life, and a slice of every start — while a server that answers an
 * integration uses a handful. Here each is the same serializer, built by Fastify's own compiler with the
 * same options and shared schemas, on its route's first answer. `compilePendingSerializers` builds the rest
 * at once (tests do, so a response schema that does not compile fails the suite, not a route's first answer).
 */
import fastJsonStringifyCompiler from '@fastify/fast-json-stringify-compiler'

type Serializer = fastJsonStringifyCompiler.Serializer

/** Serializers made but not yet compiled, with the route and status each is for. */
const pending = new Map<() => Serializer, string>()

/**
 * Serializers already built in this process, by what they were built from: the shared schemas and options
 * (as text), then the response schema (the same object for every app built from these modules). A process
 * that builds the app many times — the tests build one per file, many files to a process — builds each
 * serializer once; a server builds one app, and this changes nothing for it.
 */
const built = new Map<string, WeakMap<object, Serializer>>()

/** Fastify's `schemaController.compilersFactory.buildSerializer`: its own, deferred to each first use. */
export const buildSerializerOnFirstUse: fastJsonStringifyCompiler.SerializerFactory = (externalSchemas, options) => {
  const build = fastJsonStringifyCompiler.SerializerSelector()(externalSchemas, options)
  const inputs = JSON.stringify([externalSchemas, options])
  let same = built.get(inputs)
  if (same === undefined) built.set(inputs, (same = new WeakMap()))
  const sameInputs = same
  return (routeSchema) => {
    let compiled: Serializer | undefined
    const get = () => {
      if (compiled === undefined) {
        pending.delete(get)
        const { schema } = routeSchema
        if (typeof schema !== 'object' || schema === null) compiled = build(routeSchema)
        else sameInputs.set(schema, (compiled = sameInputs.get(schema) ?? build(routeSchema)))
      }
      return compiled
    }
    pending.set(get, `${routeSchema.method} ${routeSchema.url} (${routeSchema.httpStatus})`)
    return (data) => get()(data)
  }
}

/** Compiles every serializer made so far that has not been used yet; one that does not compile is named. */
export function compilePendingSerializers(): void {
  for (const [compile, what] of [...pending]) {
    try {
      compile()
    } catch (error) {
      throw new Error(`The response serializer of ${what} does not compile: ${(error as Error).message}`, {
        cause: error,
      })
    }
  }
}
