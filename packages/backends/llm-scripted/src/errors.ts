/** Errors of the scripted model: a script that fails validation at load. */

import { CodedError } from '@logbook/session'

/** Every code a `ScriptError` can carry. */
export type ScriptErrorCode = 'INVALID_SCRIPT'

/** A script that cannot be used; the message names the file or the entry index. Thrown at plugin load. */
export class ScriptError extends CodedError<ScriptErrorCode> {
  readonly index?: number

  constructor(message: string, index?: number) {
    super('INVALID_SCRIPT', index === undefined ? `invalid script: ${message}` : `invalid script: entry ${index}: ${message}`)
    if (index !== undefined) this.index = index
  }
}
