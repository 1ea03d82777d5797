/**
 * The `procurement` command: serve, migrate, seed, and the operator's tools (one file per command group).
 * Arguments are parsed by node's own util.parseArgs in strict mode: an unknown option or a stray argument is
 * named, with that command's usage. `procurement <command> --help` prints that command's usage.
 * Exit codes: 0 done, 1 failed (message on stderr), 2 wrong usage.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { Config } from '../config.ts'
import { serviceVersion } from '../core/version.ts'
import type { Database } from '../db/database.ts'
import { exitWithFailure, loadServer } from './serve-command.ts'
import {
  AUDIT_HELP,
  AUDIT_OPTIONS,
  BACKUP_HELP,
  CHECK_HELP,
  CLIENTS_HELP,
  CLIENTS_OPTIONS,
  KEYS_HELP,
  OUTBOX_HELP,
  OUTBOX_OPTIONS,
  TENANTS_HELP,
  TENANTS_OPTIONS,
  UsageError,
  USERS_HELP,
  USERS_OPTIONS,
} from './usage.ts'

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>

interface Command {
  help: string
  options: NonNullable<ParseArgsConfig['options']>
  positionals?: boolean
  run(config: Readonly<Config>, args: string[], values: Values, positionals: string[]): Promise<unknown> | void
}

const COMMANDS: Record<string, Command> = {
  serve: {
    help: `  serve                         Migrate, seed the demo tenant on first run (embedded database), and
                                serve HTTP (the default command)`,
    options: {},
    run: async (config) => (await loadServer()).serve(config),
  },
  migrate: {
    help: `  migrate [--status]            Apply pending database migrations and exit; --status lists every
                                migration, applied or pending, and changes nothing`,
    options: { status: { type: 'boolean' } },
    run: async (config, _args, values) => {
      const { migrateOnly, withDatabase } = await import('./shared.ts')
      return values.status === true
        ? withDatabase(config, 'migrate --status', printStatus, async () => {})
        : withDatabase(config, 'migrate', async () => console.log('Database is up to date.'), migrateOnly)
    },
  },
  seed: {
    help: '  seed                          Create the demo tenant if it does not exist, and exit',
    options: {},
    run: async (config) => {
      const [{ migrateOnly, withDatabase }, { seedDemo }] = await Promise.all([
        import('./shared.ts'),
        import('../seed/demo.ts'),
      ])
      return withDatabase(
        config,
        'seed',
        async (db) => {
          const created = await seedDemo(db)
          console.log(
            created ? 'Created the demo tenant (domain "demo").' : 'The demo tenant already exists; nothing changed.',
          )
        },
        migrateOnly,
      )
    },
  },
  tenants: {
    help: TENANTS_HELP,
    options: TENANTS_OPTIONS,
    positionals: true,
    run: async (c, a) => (await import('./tenants.ts')).tenantsCommand(c, a),
  },
  users: {
    help: USERS_HELP,
    options: USERS_OPTIONS,
    positionals: true,
    run: async (c, a) => (await import('./tenants.ts')).usersCommand(c, a),
  },
  clients: {
    help: CLIENTS_HELP,
    options: CLIENTS_OPTIONS,
    positionals: true,
    run: async (c, a) => (await import('./clients.ts')).clients(c, a),
  },
  audit: { help: AUDIT_HELP, options: AUDIT_OPTIONS, run: async (c, a) => (await import('./audit.ts')).audit(c, a) },
  outbox: {
    help: OUTBOX_HELP,
    options: OUTBOX_OPTIONS,
    run: async (c, a) => (await import('./outbox.ts')).outbox(c, a),
  },
  check: {
    help: CHECK_HELP,
    options: { json: { type: 'boolean' } },
    run: async (c, _a, v) => (await import('./check.ts')).check(c, v.json === true),
  },
  backup: {
    help: BACKUP_HELP.split('\n')[0]!,
    options: {},
    positionals: true,
    run: async (c, _a, _v, p) => (await import('./backup.ts')).backup(c, p[0]),
  },
  restore: {
    help: BACKUP_HELP.split('\n').slice(1).join('\n'),
    options: { force: { type: 'boolean' } },
    positionals: true,
    run: async (c, _a, v, p) => (await import('./backup.ts')).restore(c, p[0], v.force === true),
  },
  keys: {
    help: KEYS_HELP,
    options: { 'forget-previous': { type: 'boolean' } },
    positionals: true,
    run: async (c, _a, v, p) => (await import('./keys.ts')).keys(c, p[0], v['forget-previous'] === true),
  },
}

const HELP = `Usage: procurement <command> [options]

Commands:
${Object.values(COMMANDS)
  .map((c) => c.help)
  .join('\n')}

  procurement <command> --help  Usage of one command
  procurement --version         The version

Settings come from environment variables; see docs/configuration.md and docs/operations.md.
With the embedded database (no DATABASE_URL) one process holds DATA_DIR; while the server runs, audit,
outbox and clients create are answered by the server through DATA_DIR/control.sock.`

const usageOf = (name: string) => `Usage: procurement ${name} [options]\n\n${COMMANDS[name]!.help}`

async function printStatus(db: Database['db']): Promise<void> {
  const { migrationStatus } = await import('../db/migrate.ts')
  const status = await migrationStatus(db)
  for (const m of status)
    console.log(`${m.executedAt ? `applied ${m.executedAt.toISOString()}` : 'pending'}  ${m.name}`)
  const pending = status.filter((m) => m.executedAt === undefined).length
  console.log(
    pending === 0
      ? 'The database is up to date.'
      : `${pending} migration(s) pending: procurement migrate applies them.`,
  )
}

/** A parseArgs complaint, as one line that names the option or argument. */
function usageProblem(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) return undefined
  const named = /'([^']+)'/.exec((error as Error).message)?.[1]
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${named}`
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument ${named}`
  return (error as Error).message.split('\n')[0]
}

let current: string | undefined

async function main(argv: string[]): Promise<void> {
  const [first = 'serve', ...rest] = argv
  if (['--version', '-V', 'version'].includes(first)) return console.log(serviceVersion())
  if (['--help', '-h', 'help'].includes(first)) {
    const topic = rest[0]
    return console.log(topic !== undefined && Object.hasOwn(COMMANDS, topic) ? usageOf(topic) : HELP)
  }
  if (!Object.hasOwn(COMMANDS, first)) throw new UsageError(`unknown command ${first}`)
  current = first
  const command = COMMANDS[first]!
  if (rest.includes('--help') || rest.includes('-h')) return console.log(usageOf(first))
  const { values, positionals } = parseArgs({
    args: rest,
    options: command.options,
    allowPositionals: command.positionals === true,
    strict: true,
  })
  // `serve` reads its settings with the server's own copy of config.ts, rather than load a second one.
  const { loadConfig } = first === 'serve' ? await loadServer() : await import('../config.ts')
  await command.run(loadConfig(), rest, values, positionals)
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  const usage = error instanceof UsageError ? error.message : usageProblem(error)
  if (usage !== undefined) {
    const where = current === undefined ? 'procurement' : `procurement ${current}`
    console.error(`${where}: ${usage}\n\n${current === undefined ? HELP : usageOf(current)}`)
    process.exit(2)
  }
  exitWithFailure(error, (await import('./operator-facing.ts')).operatorFacing(error))
})
