/**
 * Live access (oauth/access.repository.ts) served from memory, without a stale answer: every change that
 * can alter it notifies `access_changed` with the tenant's id from the changing transaction (migration
 * 0004), and db/tenant-cache.ts drops that tenant's entries when the notification arrives.
 */
import { TenantCache } from '../db/tenant-cache.ts'
import type { LiveAccess } from './access.repository.ts'
import type { AccessClaims } from './tokens.ts'

export const ACCESS_CHANNEL = 'access_changed'

export class LiveAccessCache {
  /** Subscribe it to ACCESS_CHANNEL (http/changes.ts); until then it serves nothing. */
  readonly entries: TenantCache<LiveAccess>

  constructor(maxEntries = 10_000, maxAgeMs = 60_000) {
    this.entries = new TenantCache(maxEntries, maxAgeMs)
  }

  /** The live access for these claims: from memory when the subscription vouches for it, else from `load`. */
  get(claims: AccessClaims, load: () => Promise<LiveAccess | undefined>): Promise<LiveAccess | undefined> {
    const key = `${claims.applicationId}|${claims.userId}|${claims.secretVersion}|${claims.jti}|${claims.domain}`
    return this.entries.get(claims.tenantId, key, load)
  }
}
