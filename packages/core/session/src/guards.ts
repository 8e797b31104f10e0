/** The type guards the payload validators, the envelope checks and the chunk codec share. */

/** A JSON object as the checks read it. */
export type Obj = Record<string, unknown>

/** A non-null object that is not an array. */
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `Number.isSafeInteger`, typed as a guard. */
export const isSafeInt = Number.isSafeInteger as (v: unknown) => v is number
