/** `procurement keys rotate`: new signing key and pepper for the embedded default (DATA_DIR/secrets.json). */
import type { Config } from '../config.ts'
import { OperatorError } from '../core/operator-error.ts'
import { keyFilePath, rotateStoredKeys } from '../keys.ts'
import { UsageError } from './usage.ts'

export function keys(config: Readonly<Config>, action: string | undefined, forget: boolean): void {
  if (action !== 'rotate') throw new UsageError('keys takes rotate')
  if (config.TOKEN_SIGNING_KEY !== undefined && config.SECRET_PEPPER !== undefined) {
    throw new OperatorError(
      'TOKEN_SIGNING_KEY and SECRET_PEPPER come from the environment: rotate them there (the old values go to TOKEN_SIGNING_KEYS_PREVIOUS and SECRET_PEPPERS_PREVIOUS; see docs/operations.md).',
    )
  }
  const next = rotateStoredKeys(config.dataDir, { forget })
  const file = keyFilePath(config.dataDir)
  console.log(
    forget
      ? `Dropped the previous keys from ${file}. Restart the service: tokens signed under them, and secrets still hashed under them, stop working.`
      : `New signing key and pepper in ${file}; ${next.previous_token_signing_keys?.length ?? 0} previous key(s) still verify. Restart the service to sign with the new key.`,
  )
}
