/**
 * The scripted adapter (spec 03 §3.3): answers each request with the first unused matching script entry,
 * deterministically, with optional delays, failures and hangs driven by timers and the request signal.
 */

import { finishAborted, finishError, LlmFailureError, type LlmAdapter, type LlmRequest } from '@logbook/llm'
import type { StreamChunk } from '@logbook/session'
import { ScriptCursor, lastUserText, purposeOf } from './match.ts'
import { buildReply, replyFinish, replyUsage } from './reply.ts'
import type { ScriptResponse } from './types.ts'

/** What a scripted adapter is built from (the plugin's config with the script already validated). */
export interface ScriptedAdapterOptions {
  readonly provider: string
  readonly contextWindow: number
  readonly chunkSize: number
  readonly entries: readonly ScriptResponse[]
}

/** Wait `ms` on a timer; resolves `false` as soon as `signal` fires (at once when it already has). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false)
  if (ms <= 0) return Promise.resolve(true)
  return new Promise(resolve => {
    const onAbort = (): void => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Resolve once `signal` fires; never without a signal. */
function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise(resolve => {
    if (signal === undefined) return
    if (signal.aborted) resolve()
    else signal.addEventListener('abort', () => resolve(), { once: true })
  })
}

/** The message of a request no entry answers (normative prefix). */
export function exhaustedMessage(request: LlmRequest): string {
  const last = Array.from(lastUserText(request.messages)).slice(0, 40).join('')
  return `scripted model has no response for this request (purpose ${purposeOf(request)}, last user text "${last}")`
}

async function* respond(entry: ScriptResponse, request: LlmRequest, chunkSize: number): AsyncGenerator<StreamChunk> {
  const { signal } = request
  if (!(await sleep(entry.delayMs, signal))) return yield finishAborted()
  const { content, blocks } = buildReply(entry, request, chunkSize)
  const limit = entry.error === undefined ? content.length : Math.min(entry.error.afterChunks ?? 0, content.length)
  for (let i = 0; i < limit; i++) {
    if (!(await sleep(i === 0 ? 0 : entry.chunkDelayMs, signal))) return yield finishAborted()
    yield content[i]!
  }
  if (entry.error !== undefined) {
    const failure = { code: entry.error.code, message: entry.error.message }
    if (entry.error.throw === true) throw new LlmFailureError(failure)
    return yield finishError(failure)
  }
  if (entry.hang) {
    await untilAborted(signal)
    return yield finishAborted()
  }
  yield { type: 'usage', usage: replyUsage(entry, request, blocks) }
  yield { type: 'finish', reason: replyFinish(entry) }
}

/** A deterministic adapter answering from `options.entries`; use counts are kept per session id. */
export function createScriptedAdapter(options: ScriptedAdapterOptions): LlmAdapter {
  const cursor = new ScriptCursor(options.entries)
  return {
    provider: options.provider,
    modelInfo: () => ({ contextWindow: options.contextWindow }),
    async *stream(request) {
      const entry = cursor.take(request)
      if (entry === undefined) {
        yield finishError({ code: 'SCRIPT_EXHAUSTED', message: exhaustedMessage(request) })
        return
      }
      yield* respond(entry, request, options.chunkSize)
    },
  }
}
