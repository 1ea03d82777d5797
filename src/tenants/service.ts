/**
 * Tenants, by the operator: creating a company with everything it needs to start (roles, base currency,
 * legal entity, headquarters with a department, and its first administrator with a one-time set-up link),
 * listing them, and switching one off or on. A deactivated tenant's tokens and sessions stop working at
 * once, and the token endpoint refuses its clients (every check joins the tenant's `active`).
 */
import type { Kysely } from 'kysely'
import { operatorActor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { conflict, notFound, validationFailed, type FieldErrors } from '../core/problem.ts'
import { issueLink } from '../invitations/service.ts'
import { addFirstAdministrator, findUsersByEmail } from '../users/service.ts'
import * as repo from './repository.ts'
import { STANDARD_ROLES } from './roles.ts'

export interface NewTenant {
  domain: string
  name: string
  adminEmail: string
  adminFirstName?: string | undefined
  adminLastName?: string | undefined
  currency?: string | undefined
}

const DOMAIN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

function problems(t: NewTenant): FieldErrors {
  const errors: FieldErrors = {}
  if (!DOMAIN.test(t.domain))
    errors.domain = ['must be 1 to 63 lower-case letters, digits or hyphens, not starting or ending with a hyphen']
  if (t.name.trim() === '' || t.name.length > 300) errors.name = ['must be 1 to 300 characters']
  if (!EMAIL.test(t.adminEmail) || t.adminEmail.length > 254) errors['admin-email'] = ['must be an e-mail address']
  if (t.currency !== undefined && !/^[A-Z]{3}$/.test(t.currency))
    errors.currency = ['must be a three-letter ISO 4217 code, e.g. USD']
  for (const [field, value] of [
    ['admin-first-name', t.adminFirstName],
    ['admin-last-name', t.adminLastName],
  ] as const) {
    if (value !== undefined && value.length > 100) errors[field] = ['must be at most 100 characters']
  }
  return errors
}

/** Creates the tenant in one transaction; returns the administrator's one-time set-up token (24 h). */
export function createTenant(
  db: Kysely<DB>,
  t: NewTenant,
): Promise<{ tenantId: number; adminUserId: number; setupToken: string }> {
  const errors = problems(t)
  if (Object.keys(errors).length > 0)
    throw validationFailed(
      errors,
      `The tenant is not valid: ${Object.entries(errors)
        .map(([f, m]) => `${f} ${m.join(', ')}`)
        .join('; ')}.`,
    )
  return inTransaction(db, async (tx) => {
    if ((await repo.findTenantByDomain(tx, t.domain)) !== undefined) throw conflict(`The domain ${t.domain} is taken.`)
    const { id: tenantId } = await repo.insertTenant(tx, t.domain, t.name.trim())
    const [administrator] = await repo.insertRoles(tx, tenantId, STANDARD_ROLES)
    const company = await repo.insertCompanyStructure(tx, tenantId, {
      name: t.name.trim(),
      currency: t.currency ?? 'USD',
    })
    const adminUserId = await addFirstAdministrator(tx, tenantId, {
      email: t.adminEmail.trim(),
      firstName: t.adminFirstName ?? '',
      lastName: t.adminLastName ?? '',
      phone: '',
      position: 'Administrator',
      profileImage: '',
      ssoEnabled: false,
      roleId: administrator!,
      allLocations: true,
      locations: [{ id: company.locationId, allDepartments: true, departments: [] }],
      homeDepartment: company.departmentId,
      homeLocation: company.locationId,
      legalEntities: [company.legalEntityId],
      invite: false,
    })
    const setupToken = await issueLink(tx, tenantId, adminUserId, 'setup')
    const actor = operatorActor({ id: tenantId, domain: t.domain })
    await audit(tx, actor, {
      action: 'tenant.create',
      resourceType: 'tenant',
      resourceId: t.domain,
      changes: { name: t.name, admin_email: t.adminEmail },
    })
    return { tenantId, adminUserId, setupToken }
  })
}

export const listTenants = repo.allTenants
export const findTenant = repo.findTenantByDomain

/** Switches a tenant off (its tokens, sessions and clients stop at once) or on again. */
export function setTenantActive(db: Kysely<DB>, domain: string, active: boolean): Promise<void> {
  return inTransaction(db, async (tx) => {
    const tenant = await repo.setActive(tx, domain, active)
    if (tenant === undefined) throw notFound(`No tenant ${domain}.`)
    await audit(tx, operatorActor(tenant), {
      action: active ? 'tenant.activate' : 'tenant.deactivate',
      resourceType: 'tenant',
      resourceId: domain,
    })
  })
}

/** A new one-time set-password link for a user of a tenant (earlier reset links stop working). */
export function resetPasswordLink(db: Kysely<DB>, domain: string, email: string): Promise<string> {
  return inTransaction(db, async (tx) => {
    const tenant = await repo.findTenantByDomain(tx, domain)
    if (tenant === undefined) throw notFound(`No tenant ${domain}.`)
    const [user] = await findUsersByEmail(tx, email, domain)
    if (user === undefined) throw notFound(`No user ${email} in ${domain}.`)
    if (!user.is_active) throw conflict(`${email} is deactivated; activate the user before resetting the password.`)
    const token = await issueLink(tx, tenant.id, user.userId, 'reset')
    await audit(tx, operatorActor(tenant), {
      action: 'user.reset_password',
      resourceType: 'user',
      resourceId: user.userId,
    })
    return token
  })
}

export const countTenants = repo.countTenants

/** The standard roles every new company starts with (the demo seed starts from them too). */
export { ADMINISTRATOR, APPROVER, BUYER, REQUESTER, STANDARD_ROLES, type StandardRole } from './roles.ts'
