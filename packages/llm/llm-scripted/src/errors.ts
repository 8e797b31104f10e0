/** Errors of the scripted model: a script that fails validation at load. */

/** Every code a `ScriptError` can carry. */
export type ScriptErrorCode = 'INVALID_SCRIPT'

/** A script that cannot be used; the message names the file or the entry index. Thrown at plugin load. */
export class ScriptError extends Error {
  declare readonly code: ScriptErrorCode
  readonly index?: number

  constructor(message: string, index?: number) {
    super(index === undefined ? `invalid script: ${message}` : `invalid script: entry ${index}: ${message}`)
    Object.defineProperty(this, 'code', { value: 'INVALID_SCRIPT', enumerable: true, writable: false })
    if (index !== undefined) this.index = index
    this.name = new.target.name
  }
}
