/**
 * What `procurement --help` and parseArgs need of each command: its usage text and its options. Kept apart
 * from the commands themselves (and free of imports), so that `--help`, `--version` and a wrong argument
 * load this file and nothing else; main.ts loads a command's module only to run it.
 */

/** Wrong usage: printed with the help text, exit code 2. */
export class UsageError extends Error {}

export const TENANTS_HELP = `  tenants create --domain <d> --name <company> --admin-email <e> [--admin-first-name <n>]
                [--admin-last-name <n>] [--currency USD] [--json]
                                Create a company (roles, base currency, legal entity, headquarters,
                                department) and its first administrator; prints a one-time
                                set-password link for the administrator (valid 24 hours)
  tenants list [--json]         List tenants
  tenants deactivate <domain>   Switch a tenant off: its tokens, sessions and clients stop at once
  tenants activate <domain>     Switch it on again`

export const USERS_HELP = `  users reset-password --domain <d> --email <e> [--json]
                                Print a new one-time set-password link for a user (valid 24 hours)
  users activate --domain <d> --email <e> [--json]
                                Re-activate a deactivated user: they can sign in again and their
                                roles apply again`

export const TENANTS_OPTIONS = {
  domain: { type: 'string' },
  name: { type: 'string' },
  'admin-email': { type: 'string' },
  'admin-first-name': { type: 'string' },
  'admin-last-name': { type: 'string' },
  currency: { type: 'string' },
  json: { type: 'boolean' },
} as const

export const USERS_OPTIONS = {
  domain: { type: 'string' },
  email: { type: 'string' },
  json: { type: 'boolean' },
} as const

export const CLIENTS_HELP = `  clients create --email <owner> [--description <text>] [--domain <domain>] [--json]
                                Create an application (client credentials) acting as that user
  clients list [--domain <domain>] [--json]
                                List applications (never their secrets)
  clients rotate <client_id> [--json]
                                Issue a new secret; the old one and its tokens stop working
  clients revoke <client_id>    Revoke an application; its tokens stop working`

export const CLIENTS_OPTIONS = {
  email: { type: 'string' },
  description: { type: 'string' },
  domain: { type: 'string' },
  json: { type: 'boolean' },
} as const

export const AUDIT_HELP = `  audit [--since <ISO date|30m|24h|7d>] [--domain <d>] [--json]
                                Print the audit log of writes`

export const AUDIT_OPTIONS = {
  since: { type: 'string' },
  domain: { type: 'string' },
  json: { type: 'boolean' },
} as const

export const OUTBOX_HELP = `  outbox [--all] [--json]       List queued e-mail (invitations); --all includes sent and failed`

export const OUTBOX_OPTIONS = { all: { type: 'boolean' }, json: { type: 'boolean' } } as const

export const BACKUP_HELP = `  backup <file>                 Embedded database: write the database and its keys to <file> (0600)
  restore <file> [--force]      Embedded database: restore <file> into DATA_DIR, which must be missing
                                or empty (--force replaces what is there)`

export const CHECK_HELP = `  check [--json]                Read every table and compare it with the service's own counts;
                                exit 1 naming what is wrong (a damaged or truncated table file)`

export const KEYS_HELP = `  keys rotate [--forget-previous]
                                Embedded database: a new token signing key and secret pepper in
                                DATA_DIR/secrets.json; the old ones keep verifying (restart to use the
                                new ones). --forget-previous drops the old ones instead`
