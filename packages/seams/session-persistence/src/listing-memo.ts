/**
 * The listing memo (02 §1.3): what a backend's listing computed from one session's stored bytes (a checked, frozen
 * header; for JSONL the whole entry), reused while every stored value it was computed from is unchanged. It is a memo
 * of a pure function keyed by its exact inputs, so it can never serve a result for bytes that changed; it only saves
 * the parse and the checks. Entries live for two first-page passes: the latest one and the one before it.
 */

/** The stored values one memo entry was computed from, compared with `===` (strings by content). */
export type MemoInputs = readonly (string | number | bigint | null | undefined)[]

interface MemoEntry<V> {
  readonly inputs: MemoInputs
  readonly value: V
}

function sameInputs(a: MemoInputs, b: MemoInputs): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * A per-backend memo of listing results by session key; `get` returns a value only when the inputs are all equal to
 * those it was stored with. `beginPass()` (at every first page) drops what the pass before the previous one saw, so
 * deleted sessions leave the memo within two first pages and it holds at most two passes' entries.
 */
export class ListingMemo<V> {
  #current = new Map<string, MemoEntry<V>>()
  #previous = new Map<string, MemoEntry<V>>()

  /** Starts a pass that reads every stored session (a first page). */
  beginPass(): void {
    this.#previous = this.#current
    this.#current = new Map()
  }

  /** The value stored for `key` with exactly these `inputs`, or undefined. */
  get(key: string, inputs: MemoInputs): V | undefined {
    const entry = this.#current.get(key) ?? this.#previous.get(key)
    if (entry === undefined || !sameInputs(entry.inputs, inputs)) return undefined
    this.#current.set(key, entry)
    return entry.value
  }

  /** Remembers `value` as computed from `inputs` for `key`. */
  set(key: string, inputs: MemoInputs, value: V): void {
    this.#current.set(key, { inputs, value })
  }

  /**
   * The value for `key` computed from `inputs`: the remembered one while the inputs are unchanged, else `compute()`,
   * remembered unless it is an `Error` (a failed check is made again, and reported afresh, by the next listing).
   */
  recall<E = never>(key: string, inputs: MemoInputs, compute: () => V | E): V | E {
    const known = this.get(key, inputs)
    if (known !== undefined) return known
    const value = compute()
    if (!(value instanceof Error)) this.set(key, inputs, value as V)
    return value
  }

  /** Forgets everything (a backend's store closed or replaced). */
  clear(): void {
    this.#current = new Map()
    this.#previous = new Map()
  }
}
