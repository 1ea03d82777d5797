/** Schema pieces every resource uses. */
import { Type } from 'typebox'

/** A row id as clients send it: a positive 32-bit integer (the database's `integer`); larger is a 400, not a database error. */
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647 })

/** Names a schema for the OpenAPI document: it becomes `components.schemas.<name>`, referenced by `$ref`. */
export const named = <T extends object>(name: string, schema: T): T => Object.assign(schema, { 'x-component': name })
