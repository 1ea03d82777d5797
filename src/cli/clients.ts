/**
 * `procurement clients …`: the operator's tool for client credentials. It acts as the operator on the
 * application's tenant through the same operations as the API (applications/service.ts), so every change
 * is one transaction with exactly one audit entry, and a refused change writes none.
 */
import { parseArgs } from 'node:util'
import type { Config } from '../config.ts'
import { serverKeys } from '../keys.ts'
import { printer, viaServerOr, withDatabase } from './shared.ts'
import { CLIENTS_OPTIONS, UsageError } from './usage.ts'

/**
 * What a command run here (not by the server) needs: loaded only then, so that `clients create` answered by a
 * running server through its control socket loads none of it.
 */
const services = () =>
  Promise.all([
    import('../applications/service.ts'),
    import('../access/actor.ts'),
    import('../tenants/service.ts'),
    import('../core/problem.ts'),
  ])

export async function clients(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: CLIENTS_OPTIONS })
  const [action, clientId] = positionals
  const pepper = serverKeys(config).pepper
  const print = printer(values.json)
  if (action === 'create') {
    const email = values.email
    if (email === undefined) throw new UsageError('clients create needs --email <owner>')
    const request = {
      op: 'clients create' as const,
      email,
      description: values.description ?? '',
      ...(values.domain !== undefined ? { domain: values.domain } : {}),
    }
    const creds = await viaServerOr(config, request, async (db) => {
      const [applications, { operatorActor }] = await services()
      const owner = await applications.findOwner(db, email, values.domain)
      const actor = operatorActor({ id: owner.tenantId, domain: owner.domain })
      return applications.createApplication(db, pepper, actor, {
        ownerUserId: owner.userId,
        description: request.description,
      })
    })
    return print(
      creds,
      `Client ID: ${creds.client_id}\nClient Secret: ${creds.client_secret}\n(The secret is shown only this once.)`,
    )
  }
  await withDatabase(config, `clients ${action ?? ''}`.trim(), async (db) => {
    const [applications, { operatorActor }, { findTenant: findTenantByDomain, listTenants: allTenants }, { notFound }] =
      await services()
    switch (action) {
      case 'list': {
        const tenant = values.domain === undefined ? undefined : await findTenantByDomain(db, values.domain)
        if (values.domain !== undefined && tenant === undefined) throw new UsageError(`no domain ${values.domain}`)
        const tenants = tenant ? [tenant] : await allTenants(db)
        const rows = (await Promise.all(tenants.map((t) => applications.allApplications(db, operatorActor(t))))).flat()
        const lines = rows.map(
          (r) =>
            `${r.client_id}  ${r.owner_email}  ${r.revoked_at ? 'revoked' : 'active'}  ${r.created_at}  ${r.description}`,
        )
        return print(rows, lines.join('\n'))
      }
      case 'rotate':
      case 'revoke': {
        if (clientId === undefined) throw new UsageError(`clients ${action} needs <client_id>`)
        const tenant = await applications.tenantOfApplication(db, clientId)
        if (tenant === undefined) throw notFound(`No application ${clientId}.`)
        const actor = operatorActor(tenant)
        if (action === 'revoke') {
          await applications.revokeApplication(db, actor, clientId)
          return print({ client_id: clientId, revoked: true }, `Revoked ${clientId}.`)
        }
        const creds = await applications.rotateApplication(db, pepper, actor, clientId)
        return print(
          creds,
          `Client ID: ${creds.client_id}\nClient Secret: ${creds.client_secret}\n(The old secret and its tokens no longer work.)`,
        )
      }
      case undefined:
      default:
        throw new UsageError('clients takes create, list, rotate or revoke')
    }
  })
}
