/**
 * A start or command that cannot go on until the operator acts: its message is one line that names the path
 * or setting and what to do. The command prints it alone (no stack trace) and exits 1.
 */
export class OperatorError extends Error {
  override name = 'OperatorError'
}

/** The remedy every damaged-data-directory message ends with. */
export const RESTORE_REMEDY =
  'restore DATA_DIR from a backup (procurement restore <file>) and run procurement check; the service does not start over damaged files'
