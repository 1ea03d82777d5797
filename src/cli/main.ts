/**
 * The `procurement` command: serve, migrate, seed, and the operator's tools (one file per command group).
 * Exit codes: 0 done, 1 failed (message on stderr), 2 wrong usage.
 */
import { ConfigError, loadConfig } from '../config.ts'
import { DatabaseStartError } from '../db/database.ts'
import { DataDirLockedError } from '../db/data-dir.ts'
import { OperatorError } from '../core/operator-error.ts'
import { serviceVersion } from '../core/version.ts'
import { Problem } from '../http/problem.ts'
import { seedDemo } from '../seed/demo.ts'
import { serve } from '../server.ts'
import { audit, AUDIT_HELP } from './audit.ts'
import { backup, BACKUP_HELP, restore } from './backup.ts'
import { check, CHECK_HELP } from './check.ts'
import { keys, KEYS_HELP } from './keys.ts'
import { clients, CLIENTS_HELP } from './clients.ts'
import { outbox, OUTBOX_HELP } from './outbox.ts'
import { TENANTS_HELP, tenantsCommand, usersCommand } from './tenants.ts'
import { migrateOnly, UsageError, withDatabase } from './shared.ts'

const HELP = `Usage: procurement <command> [options]

Commands:
  serve                         Migrate, seed the demo tenant on first run (embedded database), and
                                serve HTTP (default)
  migrate                       Apply pending database migrations and exit
  seed                          Create the demo tenant if it does not exist, and exit
${TENANTS_HELP}
${CLIENTS_HELP}
${AUDIT_HELP}
${OUTBOX_HELP}
${CHECK_HELP}
${BACKUP_HELP}
${KEYS_HELP}

Settings come from environment variables; see docs/configuration.md.
With the embedded database (no DATABASE_URL), a command cannot run while the server holds DATA_DIR.`

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv
  if (['--version', '-V', 'version'].includes(command)) return console.log(serviceVersion())
  if (['--help', '-h', 'help'].includes(command) || rest.includes('--help')) return console.log(HELP)
  const config = loadConfig()
  switch (command) {
    case 'serve':
      await serve(config)
      return
    case 'migrate':
      return withDatabase(config, 'migrate', async () => console.log('Database is up to date.'), migrateOnly)
    case 'seed':
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
    case 'tenants':
      return tenantsCommand(config, rest)
    case 'users':
      return usersCommand(config, rest)
    case 'clients':
      return clients(config, rest)
    case 'audit':
      return audit(config, rest)
    case 'outbox':
      return outbox(config, rest)
    case 'keys':
      return keys(config, rest[0], rest.includes('--forget-previous'))
    case 'backup':
      return backup(config, rest[0])
    case 'restore':
      return restore(
        config,
        rest.find((a) => !a.startsWith('-')),
        rest.includes('--force'),
      )
    case 'check':
      return check(config, rest.includes('--json'))
    default:
      throw new UsageError(`unknown command ${command}`)
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`procurement: ${error.message}\n\n${HELP}`)
    process.exit(2)
  }
  if (
    error instanceof ConfigError ||
    error instanceof DataDirLockedError ||
    error instanceof DatabaseStartError ||
    error instanceof OperatorError ||
    error instanceof Problem
  ) {
    console.error(`procurement: ${error.message}`)
    process.exit(1)
  }
  console.error('procurement: failed:', error)
  process.exit(1)
})
