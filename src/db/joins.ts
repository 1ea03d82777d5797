/**
 * Joins and projections every document query shares. A join of one tenant table to another matches on
 * `tenant_id` as well as the key (DECISIONS, Tenancy: every query filters every tenant table it joins by
 * `tenant_id`, so a sharded database routes it to one shard); a person is projected one way everywhere.
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'

/**
 * `join … on <alias>.tenant_id = <from>.tenant_id and <alias>.<column> = <ref>`, where `<from>` is the
 * table of `ref` (`'b.location_id'` → `b`): `.innerJoin('locations as l', byTenant('l', 'b.location_id'))`.
 */
export function byTenant(alias: string, ref: `${string}.${string}`, column = 'id') {
  const from = ref.slice(0, ref.indexOf('.'))
  const condition = sql<SqlBool>`${sql.ref(`${alias}.tenant_id`)} = ${sql.ref(`${from}.tenant_id`)}
    and ${sql.ref(`${alias}.${column}`)} = ${sql.ref(ref)}`
  return <J extends { on(expression: Expression<SqlBool>): J }>(join: J): J => join.on(condition)
}

/** A person on the wire: their profile id, names and e-mail. */
export interface PersonJson {
  id: number
  first_name: string
  last_name: string
  email: string
}

/** The person (profile) of the user whose id is the SQL expression `user`, of tenant `tenant`, as JSON. */
export const personJson = (user: Expression<number | null>, tenant: Expression<number>): RawBuilder<PersonJson> =>
  sql<PersonJson>`(select json_build_object('id', pp.id, 'first_name', pp.first_name, 'last_name', pp.last_name,
    'email', pu.email) from user_profiles pp join users pu on pu.tenant_id = pp.tenant_id and pu.id = pp.user_id
    where pp.tenant_id = ${tenant} and pp.user_id = ${user})`

/** `personJson` of a user id that may be null (then null). */
export const personOrNull = (user: Expression<number | null>, tenant: Expression<number>) =>
  personJson(user, tenant).$castTo<PersonJson | null>()
