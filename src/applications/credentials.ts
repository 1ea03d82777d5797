/**
 * Client credentials: a client id, and a secret of 256 random bits that is shown once and kept only as a keyed
 * hash (core/secrets.ts).
 */
import { randomBytes } from 'node:crypto'

export const newClientId = (): string => `pc_${randomBytes(18).toString('base64url')}`
export const newClientSecret = (): string => randomBytes(32).toString('base64url')

/** Compared against when the client id is unknown, so that case takes as long as a wrong secret. */
export const DUMMY_HASH: Buffer = randomBytes(32)
