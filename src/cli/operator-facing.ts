/** The kinds of failure an operator can act on, which the command prints as one line, without a stack. */
import { ConfigError } from '../config.ts'
import { OperatorError } from '../core/operator-error.ts'
import { Problem } from '../core/problem.ts'
import { DatabaseStartError } from '../db/database.ts'
import { DataDirLockedError } from '../db/data-dir.ts'

export const operatorFacing = (error: unknown): boolean =>
  error instanceof ConfigError ||
  error instanceof DataDirLockedError ||
  error instanceof DatabaseStartError ||
  error instanceof OperatorError ||
  error instanceof Problem
