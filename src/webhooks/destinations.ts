/**
 * Where a webhook may go. A URL is refused unless it is `https://` (or `http://` where the operator allows
 * it) and every address its host names is global unicast: loopback, unspecified, private, CGNAT, link-local
 * (169.254.169.254, the cloud metadata address, among them), unique-local, multicast, reserved and the
 * IPv6 forms that embed an IPv4 address (IPv4-compatible ::/96, 6to4, NAT64, Teredo) are all refused; an
 * IPv4-mapped address is judged as the IPv4 address it is. The URL parser
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

const v4 = (high: number, low: number) =>
  ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]) as ipaddr.IPv4

/**
 * The IPv4 address an IPv6 address carries, for the forms that carry one: IPv4-compatible (`::a.b.c.d`,
 * ::/96), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48, last 32 bits), 6to4 (2002::/16, bits
 * 16–47) and Teredo (2001::/32, the client's address in the last 32 bits, inverted). IPv4-mapped addresses
 * are turned into IPv4 by `ipaddr.process` already.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = p
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0 && (g !== 0 || h > 1)) return v4(g, h)
  if (a === 0x64 && b === 0xff9b && (c === 1 || (c === 0 && d === 0 && e === 0 && f === 0))) return v4(g, h)
  if (a === 0x2002) return v4(b, c)
  if (a === 0x2001 && b === 0) return v4(g ^ 0xffff, h ^ 0xffff)
  return undefined
}

/**
 * Whether an address (any textual form ipaddr.js reads) is global unicast. `[::7f00:1]` (::127.0.0.1) is
 * "unicast" to ipaddr.js, yet reaches 127.0.0.1 through some stacks (issue 30): forms that embed IPv4 are
 * judged here first.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.process(address)
  // A form that embeds a refused IPv4 address is refused; so is one embedding a public address (it is not
  // the address a receiver listens on, and ::/96 is deprecated): no webhook needs a transition form.
  if (parsed.kind() === 'ipv6' && embeddedIPv4(parsed as ipaddr.IPv6) !== undefined) return false
  return parsed.range() === 'unicast'
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
