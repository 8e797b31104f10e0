/**
 * The CLI's own error class, its closed code list, and the exit code every failure maps to (spec 03 §6.1).
 */

import { codeOf, CodedError } from '@logbook/session'

/** Codes the CLI raises itself; errors of the packages it drives keep their own codes. */
export type CliErrorCode =
  | 'USAGE'
  | 'INVALID_SESSION_ID'
  | 'BOOT_FAILED'
  | 'NOT_CONFIGURED'
  | 'INVALID_EXPORT'
  | 'DEMO_FAILED'

/** The closed list of `CliErrorCode`s. */
export const CLI_ERROR_CODES: readonly CliErrorCode[] = Object.freeze([
  'USAGE', 'INVALID_SESSION_ID', 'BOOT_FAILED', 'NOT_CONFIGURED', 'INVALID_EXPORT', 'DEMO_FAILED',
])

/** A failure the CLI reports as one line `logbook: <message> [<code>]`; `alreadyReported` suppresses that line. */
export class CliError extends CodedError<CliErrorCode> {
  /** The lines were printed already (boot failures print one line per entry). */
  readonly alreadyReported: boolean

  constructor(code: CliErrorCode, message: string, options: { cause?: unknown; alreadyReported?: boolean } = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause })
    this.alreadyReported = options.alreadyReported ?? false
  }
}

/** A usage error (exit 2). */
export function usageError(message: string): CliError {
  return new CliError('USAGE', message)
}

/** Exit codes (03 §6.1). */
export const EXIT = Object.freeze({
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  CONFLICT: 4,
  REPAIRABLE: 5,
  CORRUPT: 6,
  INTERRUPTED: 130,
})

/**
 * The exit code of a failure: `2` for usage errors and bad arguments (`INVALID_BOUNDARY`, `INVALID_SESSION_ID`,
 * `INVALID_QUERY`), `3` for `SESSION_NOT_FOUND`, `4` for conflicts (`SESSION_LOCKED`, `SESSION_ALREADY_EXISTS`,
 * `SESSION_CONFLICT`, `BUSY`), else `1`.
 */
export function exitCodeOf(error: unknown): number {
  switch (codeOf(error)) {
    case 'USAGE':
    case 'INVALID_BOUNDARY':
    case 'INVALID_SESSION_ID':
    case 'INVALID_QUERY':
      return EXIT.USAGE
    case 'SESSION_NOT_FOUND':
      return EXIT.NOT_FOUND
    case 'SESSION_LOCKED':
    case 'SESSION_ALREADY_EXISTS':
    case 'SESSION_CONFLICT':
    case 'BUSY':
      return EXIT.CONFLICT
    default:
      return EXIT.FAILURE
  }
}

/** The message of any thrown value, on one line. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.split(/\r?\n/).map(part => part.trim()).filter(part => part !== '').join(' ')
}
