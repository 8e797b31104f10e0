/** Message and exhaustiveness helpers: `describe` quotes strings for messages, `assertNever` guards closed unions. */

/** A printable summary of an unknown value for messages. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value instanceof Error) return value.message
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/** Exhaustiveness guard for closed unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value ${String(value)}`)
}
