/**
 * Which tenant a request's host names. With BASE_DOMAIN set, `acme.<BASE_DOMAIN>` is domain `acme`; with it
 * unset the service is single-tenant: the host is ignored and the credentials alone name the tenant.
 */
export type HostTenant = { mode: 'single' } | { mode: 'multi'; domain: string | null }

export function tenantOfHost(baseDomain: string | undefined, host: string | undefined): HostTenant {
  if (baseDomain === undefined) return { mode: 'single' }
  const name = (host ?? '').toLowerCase().replace(/\.$/, '')
  const suffix = `.${baseDomain.toLowerCase()}`
  const withoutPort = (value: string) => value.replace(/:\d+$/, '')
  for (const candidate of [name, withoutPort(name)]) {
    if (candidate.endsWith(suffix)) {
      const domain = candidate.slice(0, -suffix.length)
      return { mode: 'multi', domain: /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(domain) ? domain : null }
    }
  }
  return { mode: 'multi', domain: null }
}

/** Whether a tenant's domain may be used on this host. */
export function hostAllows(host: HostTenant, domain: string): boolean {
  return host.mode === 'single' || host.domain === domain
}
