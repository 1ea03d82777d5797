/**
 * TRUST_PROXY as Fastify's `trustProxy`. The client's address is the right-most X-Forwarded-For entry that
 * is not a trusted proxy: entries further left were written by whoever connected to that proxy, and may be
 * forged. A hop count becomes our own function: Fastify 5 takes a plain number to mean "trust no hop"
 * (every client would look like the proxy; test/security-proxy.test.ts shows both).
 */
import type { TrustProxy } from '../config.ts'

export type TrustProxyOption = false | string[] | ((address: string, hop: number) => boolean)

export function trustProxyOption(trust: TrustProxy): TrustProxyOption {
  if (trust === false || trust === 0) return false
  // Hop 0 is the peer of our socket, hop 1 the right-most X-Forwarded-For entry, and so on leftwards.
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  return [...trust]
}
