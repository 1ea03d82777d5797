/**
 * Group → role mappings (`group_roles`): a person's groups — named by the provider's groups claim at their
 * last sign-in, and by the SCIM groups they are a member of — give them the mapped roles, tenant-wide or at a
 * location. Those grants are the provider's: each sign-in or group change replaces them; grants made by hand
 * are never touched. Groups match case-insensitively, by name or by the SCIM group's externalId.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { DB } from '../db/schema.ts'
import { recordEvent } from '../events/service.ts'
import { getUser } from '../users/service.ts'
import * as repo from './repository.ts'

/** Makes the user's provider-managed grants those their groups map to now; records it when anything changed. */
export async function syncGroupRoles(tx: Kysely<DB>, actor: Actor, userId: number): Promise<void> {
  const config = await repo.findConfig(tx, actor.tenantId)
  const mapping = config?.group_roles ?? []
  const groups = new Set((await repo.groupsOf(tx, actor.tenantId, userId)).map((g) => g.toLowerCase()))
  const refs = await repo.referenceIds(tx, actor.tenantId)
  const wanted: repo.GrantKey[] = []
  for (const m of mapping) {
    if (!groups.has(m.group.toLowerCase())) continue
    // A role or location deleted since the mapping was saved grants nothing.
    if (!refs.roles.has(m.role) || (m.location !== null && !refs.locations.has(m.location))) continue
    if (!wanted.some((w) => w.role === m.role && w.location === m.location))
      wanted.push({ role: m.role, location: m.location })
  }
  const { added, removed } = await repo.replaceManagedGrants(tx, actor.tenantId, userId, wanted)
  if (added.length === 0 && removed.length === 0) return
  await audit(tx, actor, {
    action: 'user.group_roles',
    resourceType: 'user',
    resourceId: userId,
    changes: { added, removed },
  })
  const profile = await getUser(tx, actor, await repo.profileIdOf(tx, actor.tenantId, userId))
  await recordEvent(tx, actor.tenantId, 'user.updated', profile)
}
