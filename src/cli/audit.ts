/** `procurement audit`: the audit log of writes, newest last. */
import { parseArgs } from 'node:util'
import type { Config } from '../config.ts'
import { viaServerOr } from './shared.ts'
import { AUDIT_OPTIONS, UsageError } from './usage.ts'

/** `--since` takes an ISO date or time, or a span back from now: 30m, 24h, 7d. */
function parseSince(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined
  const span = /^(\d+)([mhd])$/.exec(text)
  if (span)
    return new Date(Date.now() - Number(span[1]) * { m: 60_000, h: 3600_000, d: 86400_000 }[span[2] as 'm' | 'h' | 'd'])
  const date = new Date(text)
  if (Number.isNaN(date.getTime())) throw new UsageError(`--since takes an ISO date or 30m, 24h, 7d; not ${text}`)
  return date
}

export async function audit(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: AUDIT_OPTIONS })
  const since = parseSince(values.since)
  const request = {
    op: 'audit' as const,
    ...(since ? { since: since.toISOString() } : {}),
    ...(values.domain !== undefined ? { domain: values.domain } : {}),
  }
  // The audit service is loaded only when no running server answers (viaServerOr).
  const rows = await viaServerOr(config, request, async (db) =>
    (await import('../audit/service.ts')).auditEntries(db, { since, domain: values.domain }),
  )
  if (values.json) return console.log(JSON.stringify(rows))
  for (const r of rows) {
    const who = `${r.actor ?? 'operator'}${r.client_id ? ` via ${r.client_id}` : ''}`
    console.log(
      `${new Date(r.created_at).toISOString()}  ${r.domain}  ${who}  ${r.action} ${r.resource_type}/${r.resource_id}  ${JSON.stringify(r.changes)}`,
    )
  }
}
