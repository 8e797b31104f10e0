/**
 * The normalising stream wrapper behind `ctx.llm.stream` (spec 03 §3.2): lazy start, the fail-closed
 * `llm/before-stream` hook, abort, at most one `usage`, exactly one `finish`, last.
 */

import { codeOf, messageOf, type StreamChunk } from '@logbook/session'
import { failureFromError, finishAborted, finishError } from './failure.ts'
import type { LlmAdapter, LlmRequest } from './types.ts'

/** What the wrapper needs from its service: adapter lookup, the awaited hook, and a warning sink. */
export interface StreamDeps {
  adapterFor(provider: string): LlmAdapter | undefined
  beforeStream(request: LlmRequest): Promise<void>
  warn(message: string): void
}

const ABORTED = Symbol('aborted')

/** A promise that resolves to `ABORTED` when `signal` fires (never without a signal), and its cleanup. */
function abortWatch(signal: AbortSignal | undefined): { promise: Promise<typeof ABORTED>; dispose(): void } {
  if (signal === undefined) return { promise: new Promise(() => {}), dispose() {} }
  let listener = (): void => {}
  const promise = new Promise<typeof ABORTED>(resolve => {
    listener = () => resolve(ABORTED)
    if (signal.aborted) resolve(ABORTED)
    else signal.addEventListener('abort', listener, { once: true })
  })
  return { promise, dispose: () => signal.removeEventListener('abort', listener) }
}

/** The failure of a rejected hook: the earliest-registered failing listener's code, else `HOOK_FAILED`. */
function hookFailure(error: unknown): StreamChunk {
  const first = error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error
  const code = codeOf(first)
  if (code !== undefined) return finishError({ code, message: messageOf(first) })
  return finishError({ code: 'HOOK_FAILED', message: `llm/before-stream listener failed: ${messageOf(first)}` })
}

/** Fill the `error` a failed or aborted `finish` must carry when the adapter left it out. */
function normalizeFinish(chunk: Extract<StreamChunk, { type: 'finish' }>, provider: string): StreamChunk {
  if (chunk.error !== undefined) return chunk
  if (chunk.reason === 'aborted') return finishAborted()
  if (chunk.reason === 'error') {
    return finishError({ code: 'PROVIDER', message: `adapter "${provider}" finished with an error but gave no details` })
  }
  return chunk
}

/** The `finish` of an attempt whose adapter threw: aborted when the signal fired or the code says so. */
function thrownFinish(error: unknown, signal: AbortSignal | undefined): StreamChunk {
  if (signal?.aborted) return finishAborted()
  const failure = failureFromError(error, 'PROVIDER')
  return failure.code === 'ABORTED' ? { type: 'finish', reason: 'aborted', error: failure } : finishError(failure)
}

/** Stop an adapter iterator without waiting for it: a hung adapter must not hang the consumer. */
function release(iterator: AsyncIterator<StreamChunk>): void {
  Promise.resolve()
    .then(() => iterator.return?.())
    .catch(() => {
      // An adapter failing while being stopped has nothing left to report: its attempt is already finished.
    })
}

/**
 * One normalised attempt. Nothing runs before the first pull; then the request is checked (`BAD_REQUEST`,
 * `NO_ADAPTER`), the hook is awaited (a rejection ends the attempt, adapter not called), and the adapter's chunks
 * are relayed with at most one `usage` and exactly one `finish`, last. A throw becomes `finish error` with its
 * code or `PROVIDER`, an abort `finish aborted`, an end without `finish` `PROTOCOL`.
 */
export async function* normalizeStream(request: LlmRequest, deps: StreamDeps): AsyncGenerator<StreamChunk, void, undefined> {
  const provider = request.config?.provider
  const model = request.config?.model
  if (typeof provider !== 'string' || provider === '') {
    yield finishError({ code: 'BAD_REQUEST', message: 'request config has no provider' })
    return
  }
  if (typeof model !== 'string' || model === '') {
    yield finishError({ code: 'BAD_REQUEST', message: 'request config has no model' })
    return
  }
  const adapter = deps.adapterFor(provider)
  if (adapter === undefined) {
    yield finishError({ code: 'NO_ADAPTER', message: `no model adapter is registered for provider "${provider}"` })
    return
  }
  if (request.signal?.aborted) {
    yield finishAborted()
    return
  }
  try {
    await deps.beforeStream(request)
  } catch (error) {
    yield hookFailure(error)
    return
  }
  if (request.signal?.aborted) {
    yield finishAborted()
    return
  }
  yield* relay(adapter, request, deps)
}

async function* relay(adapter: LlmAdapter, request: LlmRequest, deps: StreamDeps): AsyncGenerator<StreamChunk, void, undefined> {
  const provider = adapter.provider
  let iterator: AsyncIterator<StreamChunk>
  try {
    iterator = adapter.stream(request)[Symbol.asyncIterator]()
  } catch (error) {
    yield thrownFinish(error, request.signal)
    return
  }
  const abort = abortWatch(request.signal)
  let done = false
  let finished = false
  let usageSeen = false
  try {
    while (true) {
      let step: IteratorResult<StreamChunk> | typeof ABORTED
      try {
        step = await Promise.race([iterator.next(), abort.promise])
      } catch (error) {
        done = true
        if (finished) deps.warn(`adapter "${provider}" failed after finish; ignored: ${messageOf(error)}`)
        else yield thrownFinish(error, request.signal)
        return
      }
      if (step === ABORTED) {
        if (!finished) yield finishAborted()
        return
      }
      if (step.done === true) {
        done = true
        if (!finished) yield finishError({ code: 'PROTOCOL', message: `adapter "${provider}" ended the stream without a finish chunk` })
        return
      }
      const chunk = step.value
      if (finished) {
        deps.warn(`adapter "${provider}" sent a ${chunk.type} chunk after finish; dropped`)
      } else if (chunk.type === 'usage') {
        if (usageSeen) deps.warn(`adapter "${provider}" sent a second usage chunk; dropped`)
        else {
          usageSeen = true
          yield chunk
        }
      } else if (chunk.type === 'finish') {
        finished = true
        yield normalizeFinish(chunk, provider)
      } else {
        yield chunk
      }
    }
  } finally {
    abort.dispose()
    if (!done) release(iterator)
  }
}
