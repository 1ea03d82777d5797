/**
 * `procurement tenants …` and `procurement users reset-password|activate`: the operator onboards companies,
 * hands their people one-time set-password links (printed, never e-mailed: the operator passes them on), and
 * re-activates a user nobody left in the company can (its last superuser, say).
 */
import { parseArgs } from 'node:util'
import { operatorActor } from '../access/actor.ts'
import type { Config } from '../config.ts'
import { OperatorError } from '../core/operator-error.ts'
import { notFound } from '../core/problem.ts'
import { mailBase } from '../http/public-url.ts'
import { setupPath } from '../invitations/service.ts'
import * as tenants from '../tenants/service.ts'
import { activateUserByEmail } from '../users/grants.service.ts'
import { printer, viaServerOr, withDatabase } from './shared.ts'
import { TENANTS_OPTIONS, UsageError, USERS_OPTIONS } from './usage.ts'

const setupUrl = (config: Readonly<Config>, domain: string, token: string) =>
  `${mailBase(config, domain)}${setupPath(token)}`

export async function tenantsCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: TENANTS_OPTIONS })
  const [action, domain] = positionals
  const print = printer(values.json)
  await withDatabase(config, `tenants ${action ?? ''}`.trim(), async (db) => {
    switch (action) {
      case 'create': {
        const { domain: d, name, 'admin-email': adminEmail } = values
        if (d === undefined || name === undefined || adminEmail === undefined) {
          throw new UsageError('tenants create needs --domain, --name and --admin-email')
        }
        // Single-tenant mode serves one tenant: a second one would stop the next start, so it is refused now.
        const existing = config.BASE_DOMAIN === undefined ? await tenants.listTenants(db) : []
        if (existing.length > 0) {
          throw new OperatorError(
            `This database already has a tenant (${existing.map((t) => t.domain).join(', ')}) and BASE_DOMAIN is not set (single-tenant mode): set BASE_DOMAIN (e.g. BASE_DOMAIN=procurement.example.com, so ${d}.procurement.example.com is tenant ${d}) for this command and the service, then create it.`,
          )
        }
        const created = await tenants.createTenant(db, {
          domain: d,
          name,
          adminEmail,
          adminFirstName: values['admin-first-name'],
          adminLastName: values['admin-last-name'],
          currency: values.currency,
        })
        const setup_url = setupUrl(config, d, created.setupToken)
        return print(
          { domain: d, admin_email: adminEmail, setup_url },
          `Created tenant ${d} (${name}).\nAdministrator: ${adminEmail}\nSet-password link (one use, valid 24 hours):\n${setup_url}`,
        )
      }
      case 'list': {
        const rows = await tenants.listTenants(db)
        const lines = rows.map(
          (t) => `${t.domain}  ${t.active ? 'active' : 'deactivated'}  ${t.created_at.toISOString()}  ${t.name}`,
        )
        return print(rows, lines.join('\n') || 'No tenants.')
      }
      case 'deactivate':
      case 'activate': {
        if (domain === undefined) throw new UsageError(`tenants ${action} needs <domain>`)
        await tenants.setTenantActive(db, domain, action === 'activate')
        return print(
          { domain, active: action === 'activate' },
          `${action === 'activate' ? 'Activated' : 'Deactivated'} ${domain}.`,
        )
      }
      case undefined:
      default:
        throw new UsageError('tenants takes create, list, deactivate or activate')
    }
  })
}

export async function usersCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: USERS_OPTIONS })
  const [action] = positionals
  if (action !== 'reset-password' && action !== 'activate')
    throw new UsageError('users takes reset-password or activate')
  const { domain, email } = values
  if (domain === undefined || email === undefined) throw new UsageError(`users ${action} needs --domain and --email`)
  const print = printer(values.json)
  if (action === 'reset-password') {
    // While the embedded server runs, it makes the link (control socket), as for `clients create`.
    const request = { op: 'users reset-password' as const, domain, email }
    const token = await viaServerOr(config, request, (db) => tenants.resetPasswordLink(db, domain, email))
    const setup_url = setupUrl(config, domain, token)
    return print(
      { domain, email, setup_url },
      `Set-password link for ${email} (one use, valid 24 hours):\n${setup_url}`,
    )
  }
  await withDatabase(config, `users ${action}`, async (db) => {
    if (action === 'activate') {
      const tenant = await tenants.findTenant(db, domain)
      if (tenant === undefined) throw notFound(`No tenant ${domain}.`)
      const { profile, changed } = await activateUserByEmail(db, operatorActor(tenant), email)
      return print(
        { domain, email: profile.email, active: true, changed },
        changed
          ? `Re-activated ${profile.email} in ${domain}: they can sign in again.`
          : `${profile.email} in ${domain} is active already; nothing changed.`,
      )
    }
  })
}
