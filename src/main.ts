/**
 * The `procurement` command: serve, migrate, seed, and the operator's `clients` tool.
 * Exit codes: 0 done, 1 failed (message on stderr), 2 wrong usage.
 */
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { openDatabase, type Database } from './db/database.ts'
import { DataDirLockedError } from './db/data-dir.ts'
import { migrateToLatest } from './db/migrate.ts'
import { Problem } from './http/problem.ts'
import { appendAudit, readAudit } from './audit/repository.ts'
import { listOutbox } from './mail/outbox.repository.ts'
import { serverKeys } from './keys.ts'
import * as applications from './oauth/applications.service.ts'
import { prepareDatabase, serve } from './server.ts'
import { seedDemo } from './seed/demo.ts'

const HELP = `Usage: procurement <command> [options]

Commands:
  serve                         Migrate, seed the demo tenant on first run, and serve HTTP (default)
  migrate                       Apply pending database migrations and exit
  seed                          Create the demo tenant if it does not exist, and exit
  clients create --email <owner> [--description <text>] [--domain <domain>] [--json]
                                Create an application (client credentials) acting as that user
  clients list [--domain <domain>] [--json]
                                List applications (never their secrets)
  clients rotate <client_id> [--json]
                                Issue a new secret; the old one and its tokens stop working
  clients revoke <client_id>    Revoke an application; its tokens stop working
  audit [--since <ISO date|30m|24h|7d>] [--domain <d>] [--json]
                                Print the audit log of writes
  outbox [--all] [--json]       List queued e-mail (invitations); --all includes sent and failed

Settings come from environment variables; see docs/configuration.md.
With the embedded database (no DATABASE_URL), a command cannot run while the server holds DATA_DIR.`

class UsageError extends Error {}

/** The CLI's writes are audited too, with no user or application: the operator acted through the database. */
const operatorAudit = (db: Database['db'], tenantId: number, action: string, clientId: string, changes: object) =>
  appendAudit(db, [{ tenantId, actorUserId: null, applicationId: null, requestId: null, action, resourceType: 'application', resourceId: clientId, changes: { ...changes, via: 'cli' } }])

/** `--since` takes an ISO date or time, or a span back from now: 30m, 24h, 7d. */
function parseSince(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined
  const span = /^(\d+)([mhd])$/.exec(text)
  if (span) return new Date(Date.now() - Number(span[1]) * { m: 60_000, h: 3600_000, d: 86400_000 }[span[2] as 'm' | 'h' | 'd'])
  const date = new Date(text)
  if (Number.isNaN(date.getTime())) throw new UsageError(`--since takes an ISO date or 30m, 24h, 7d; not ${text}`)
  return date
}

async function withDatabase<T>(config: Readonly<Config>, command: string, prepare: (db: Database) => Promise<void>, work: (db: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase(config, { command, prepare })
  try {
    return await work(database)
  } finally {
    await database.close()
  }
}

async function clients(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { email: { type: 'string' }, description: { type: 'string' }, domain: { type: 'string' }, json: { type: 'boolean' } },
  })
  const [action, clientId] = positionals
  const pepper = serverKeys(config).pepper
  const print = (value: object, text: string) => console.log(values.json ? JSON.stringify(value) : text)
  const prepare = (db: Database) => prepareDatabase(db, config)
  await withDatabase(config, `clients ${action ?? ''}`.trim(), prepare, async ({ db }) => {
    switch (action) {
      case 'create': {
        if (values.email === undefined) throw new UsageError('clients create needs --email <owner>')
        const owner = await applications.findOwner(db, values.email, values.domain)
        const app = await applications.createApplication(db, pepper, owner, values.description ?? '')
        await operatorAudit(db, owner.tenantId, 'application.create', app.client_id, { owner: values.email, description: values.description ?? '' })
        print(
          { client_id: app.client_id, client_secret: app.client_secret },
          `Client ID: ${app.client_id}\nClient Secret: ${app.client_secret}\n(The secret is shown only this once.)`,
        )
        return
      }
      case 'list': {
        const tenant = values.domain === undefined ? undefined : await db.selectFrom('tenants').select('id').where('domain', '=', values.domain).executeTakeFirst()
        if (values.domain !== undefined && tenant === undefined) throw new UsageError(`no domain ${values.domain}`)
        const tenants = tenant ? [tenant] : await db.selectFrom('tenants').select('id').orderBy('id').execute()
        const rows = (await Promise.all(tenants.map((t) => applications.list(db, t.id)))).flat()
        if (values.json) return console.log(JSON.stringify(rows))
        for (const r of rows) {
          console.log(`${r.client_id}  ${r.email}  ${r.revoked_at ? 'revoked' : 'active'}  ${r.created_at.toISOString()}  ${r.description}`)
        }
        return
      }
      case 'rotate':
      case 'revoke': {
        if (clientId === undefined) throw new UsageError(`clients ${action} needs <client_id>`)
        const app = await db.selectFrom('applications').select('tenant_id').where('client_id', '=', clientId).executeTakeFirst()
        if (app === undefined) throw new Problem(404, 'Not Found', `No application ${clientId}.`)
        await operatorAudit(db, app.tenant_id, `application.${action}`, clientId, {})
        if (action === 'revoke') {
          await applications.revoke(db, app.tenant_id, clientId)
          return print({ client_id: clientId, revoked: true }, `Revoked ${clientId}.`)
        }
        const creds = await applications.rotateSecret(db, pepper, app.tenant_id, clientId)
        return print(creds, `Client ID: ${creds.client_id}\nClient Secret: ${creds.client_secret}\n(The old secret and its tokens no longer work.)`)
      }
      case undefined:
      default:
        throw new UsageError('clients takes create, list, rotate or revoke')
    }
  })
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv
  if (['--help', '-h', 'help'].includes(command) || rest.includes('--help')) return console.log(HELP)
  const config = loadConfig()
  switch (command) {
    case 'serve':
      await serve(config)
      return
    case 'migrate':
      return withDatabase(config, 'migrate', (db) => migrateToLatest(db.db).then(() => undefined), async () => console.log('Database is up to date.'))
    case 'seed':
      return withDatabase(config, 'seed', (db) => migrateToLatest(db.db).then(() => undefined), async ({ db }) => {
        console.log((await seedDemo(db)) ? 'Created the demo tenant (domain "demo").' : 'The demo tenant already exists; nothing changed.')
      })
    case 'clients':
      return clients(config, rest)
    case 'audit': {
      const { values } = parseArgs({ args: rest, options: { since: { type: 'string' }, domain: { type: 'string' }, json: { type: 'boolean' } } })
      const since = parseSince(values.since)
      return withDatabase(config, 'audit', (db) => prepareDatabase(db, config), async ({ db }) => {
        const rows = await readAudit(db, { since, domain: values.domain })
        if (values.json) return console.log(JSON.stringify(rows))
        for (const r of rows) {
          console.log(`${r.created_at.toISOString()}  ${r.domain}  ${r.actor ?? 'operator'}${r.client_id ? ` via ${r.client_id}` : ''}  ${r.action} ${r.resource_type}/${r.resource_id}  ${JSON.stringify(r.changes)}`)
        }
      })
    }
    case 'outbox': {
      const { values } = parseArgs({ args: rest, options: { all: { type: 'boolean' }, json: { type: 'boolean' } } })
      return withDatabase(config, 'outbox', (db) => prepareDatabase(db, config), async ({ db }) => {
        const rows = await listOutbox(db, values.all === true)
        if (values.json) return console.log(JSON.stringify(rows))
        if (rows.length === 0) return console.log(values.all ? 'The outbox is empty.' : 'No queued e-mail.')
        for (const m of rows) {
          console.log(`#${m.id} [${m.status}, ${m.attempts} attempts] ${m.domain} → ${m.to_address}: ${m.subject}${m.last_error ? `\n  last error: ${m.last_error}` : ''}\n  ${m.body_text.trim().replace(/\n/g, '\n  ')}`)
        }
      })
    }
    default:
      throw new UsageError(`unknown command ${command}`)
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`procurement: ${error.message}\n\n${HELP}`)
    process.exit(2)
  }
  if (error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof Problem) {
    console.error(`procurement: ${error.message}`)
    process.exit(1)
  }
  console.error('procurement: failed:', error)
  process.exit(1)
})
