/** Promises a test controls, and probes for what a call throws or a promise rejects with. */

/** A promise with its settlers, for work the test releases. */
export interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
  reject(reason: unknown): void
}

/** A promise the test settles itself (Node 20 has no `Promise.withResolvers`). */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((yes, no) => {
    resolve = yes
    reject = no
  })
  return { promise, resolve, reject }
}

/** Resolve after every pending microtask and a timer of `ms` (default: the next macrotask). */
export function tick(ms = 0): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}

/** Every item of `source`, in order. */
export async function drain<T>(source: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of source) items.push(item)
  return items
}

/** The shape tests read off a thrown value; pass a richer `E` for an error with more fields. */
type ThrownError = Error & { readonly code?: string }

/**
 * The value `fn` throws, typed as `E`.
 * @throws Error `expected a throw` when `fn` returns.
 */
export function thrown<E = ThrownError>(fn: () => unknown): E {
  try {
    fn()
  } catch (error) {
    return error as E
  }
  throw new Error('expected a throw')
}

/**
 * The reason `promise` rejects with, typed as `E`.
 * @throws Error `expected a rejection` when it resolves.
 */
export async function rejection<E = ThrownError>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise
  } catch (error) {
    return error as E
  }
  throw new Error('expected a rejection')
}
