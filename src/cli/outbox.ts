/** `procurement outbox`: queued e-mail (invitations), and with --all the sent and failed ones too. */
import { parseArgs } from 'node:util'
import type { Config } from '../config.ts'
import { viaServerOr } from './shared.ts'
import { OUTBOX_OPTIONS } from './usage.ts'

export async function outbox(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: OUTBOX_OPTIONS })
  const all = values.all === true
  // The mail service is loaded only when no running server answers (viaServerOr).
  const rows = await viaServerOr(config, { op: 'outbox', all }, async (db) =>
    (await import('../mail/service.ts')).listOutbox(db, all),
  )
  if (values.json) return console.log(JSON.stringify(rows))
  if (rows.length === 0) return console.log(all ? 'The outbox is empty.' : 'No queued e-mail.')
  for (const m of rows) {
    const error = m.last_error ? `\n  last error: ${m.last_error}` : ''
    console.log(`#${m.id} [${m.status}, ${m.attempts} attempts] ${m.domain} → ${m.to_address}: ${m.subject}${error}`)
    console.log(`  ${m.body_text.trim().replace(/\n/g, '\n  ')}`)
  }
}
