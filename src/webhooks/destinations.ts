/**
 * Where a webhook may go. A URL is refused unless it is `https://` (or `http://` where the operator allows
 * it) and every address its host names is global unicast: loopback, unspecified, private, CGNAT, link-local
 * (169.254.169.254, the cloud metadata address, among them), unique-local, multicast, reserved and the
 * IPv6 forms that embed an IPv4 address (mapped, 6to4, NAT64, Teredo) are all refused. The URL parser
 * turns every spelling of an address into one (`2130706433`, `127.1`, `0x7f.1` → 127.0.0.1), and
 * ipaddr.js classifies it. Names are resolved and each of their addresses is checked; the address checked
 * is the one the connection then uses (`pinnedLookup`), so a second DNS answer cannot swap it.
 */
import dns from 'node:dns'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

export interface Policy {
  allowHttp: boolean
  allowPrivate: boolean
}

/** Why a URL cannot be used, for the person who gave it; undefined when its form is fine. */
export function urlProblem(text: string, policy: Policy): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'is not an absolute URL'
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp))
    return policy.allowHttp
      ? 'must be an http:// or https:// URL'
      : 'must be an https:// URL (the operator allows http:// with WEBHOOK_ALLOW_HTTP=true)'
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password'
  if (url.hash !== '') return 'must not have a fragment (#…)'
  return undefined
}

/** Whether an address (any textual form ipaddr.js reads) is global unicast. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  return ipaddr.process(address).range() === 'unicast'
}

/** The host of a URL as an address or a name (brackets of an IPv6 literal removed). */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1')

export interface Resolved {
  address: string
  family: 4 | 6
}

export type Lookup = (host: string) => Promise<readonly { address: string; family: number }[]>

const systemLookup: Lookup = (host) => dns.promises.lookup(host, { all: true, verbatim: true })

/**
 * The address to connect to for `url`, or why not: `refused` (a non-public address, for the person who
 * configured it) or `unresolved` (the name does not resolve now).
 */
export async function resolveDestination(
  url: URL,
  policy: Policy,
  lookup: Lookup = systemLookup,
): Promise<Resolved | { refused: string } | { unresolved: string }> {
  const host = hostOf(url)
  if (ipaddr.isValid(host)) {
    const family = ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4
    if (policy.allowPrivate || isPublicAddress(host)) return { address: host, family }
    return { refused: `${url.hostname} is not a public address` }
  }
  let addresses: readonly { address: string; family: number }[]
  try {
    addresses = await lookup(host)
  } catch (error) {
    return { unresolved: `${host} does not resolve (${(error as { code?: string }).code ?? 'lookup failed'})` }
  }
  const first = addresses[0]
  if (first === undefined) return { unresolved: `${host} does not resolve` }
  if (!policy.allowPrivate) {
    const blocked = addresses.find((a) => !isPublicAddress(a.address))
    if (blocked !== undefined) return { refused: `${host} resolves to ${blocked.address}, not a public address` }
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 }
}

/** A `lookup` for http.request that answers with the address already checked, whatever DNS says now. */
export function pinnedLookup(resolved: Resolved): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address: resolved.address, family: resolved.family }])
    else callback(null, resolved.address, resolved.family)
  }
}
