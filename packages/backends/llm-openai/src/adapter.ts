/**
 * The OpenAI-compatible adapter (spec 03 §3.4): one streaming `POST <baseUrl>/chat/completions` per attempt, an
 * idle timeout between received bytes, and every failure reported in-band — the stream never throws.
 */

import { finishAborted, finishError, type LlmAdapter, type LlmRequest, type ModelInfo } from '@logbook/llm'
import type { StreamChunk } from '@logbook/session'
import type { Config } from './config.ts'
import { ResponseDecoder } from './decode.ts'
import { ERROR_BODY_LIMIT, httpFailure, networkFailure } from './failures.ts'
import { requestBody, requestHeaders } from './mapping.ts'
import { SseParser } from './sse.ts'

/** Why the connection was cut from our side: the request's signal, or the idle timer. */
type Cut = 'abort' | 'timeout'

/** A fetch signal that fires on the request's abort or after `timeoutMs` without bytes while armed. */
class Watchdog {
  readonly controller = new AbortController()
  cut: Cut | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private readonly onAbort = (): void => this.fire('abort')

  constructor(private readonly signal: AbortSignal | undefined, private readonly timeoutMs: number) {
    signal?.addEventListener('abort', this.onAbort, { once: true })
  }

  private fire(cut: Cut): void {
    this.cut ??= cut
    this.controller.abort()
  }

  /** Run `wait` (a network wait) under the idle timer. */
  async watch<T>(wait: () => Promise<T>): Promise<T> {
    this.timer = setTimeout(() => this.fire('timeout'), this.timeoutMs)
    try {
      return await wait()
    } finally {
      clearTimeout(this.timer)
    }
  }

  /** The finish of a connection we cut, or `undefined` when the failure was not ours. */
  interruption(): StreamChunk | undefined {
    if (this.cut === 'abort') return finishAborted()
    if (this.cut === 'timeout') {
      return finishError({ code: 'TIMEOUT', message: `openai: no data received for ${this.timeoutMs} ms` })
    }
    return undefined
  }

  dispose(): void {
    clearTimeout(this.timer)
    this.signal?.removeEventListener('abort', this.onAbort)
    // Closes the connection if the body was not read to its end (early exit, failure, consumer gone).
    this.controller.abort()
  }
}

/** Read at most `limit` bytes of a body as UTF-8 text. */
async function readLimited(response: Response, limit: number, watchdog: Watchdog): Promise<string> {
  if (response.body === null) return ''
  const reader = response.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  while (size < limit) {
    const { done, value } = await watchdog.watch(() => reader.read())
    if (done) break
    parts.push(value)
    size += value.byteLength
  }
  return Buffer.concat(parts).subarray(0, limit).toString('utf8')
}

async function* streamCompletion(config: Config, apiKey: string | undefined, request: LlmRequest): AsyncGenerator<StreamChunk> {
  if (request.signal?.aborted) return yield finishAborted()
  const watchdog = new Watchdog(request.signal, config.timeoutMs)
  try {
    let response: Response
    try {
      response = await watchdog.watch(() => fetch(`${config.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: requestHeaders(apiKey, config.headers),
        body: JSON.stringify(requestBody(request, config)),
        signal: watchdog.controller.signal,
      }))
    } catch (error) {
      return yield watchdog.interruption() ?? finishError(networkFailure(error))
    }
    if (!response.ok) {
      let body: string
      try {
        body = await readLimited(response, ERROR_BODY_LIMIT, watchdog)
      } catch (error) {
        const interrupted = watchdog.interruption()
        if (interrupted !== undefined) return yield interrupted
        body = ''
      }
      return yield finishError(httpFailure(response.status, response.statusText, body, response.headers, Date.now()))
    }
    if (response.body === null) return yield finishError({ code: 'PROTOCOL', message: 'openai: response has no body' })
    yield* relayEvents(response.body.getReader(), watchdog)
  } finally {
    watchdog.dispose()
  }
}

/** How much of a body that holds no event is kept, to read it as one JSON answer at its end. */
const JSON_BODY_LIMIT = 4 * 1024 * 1024

/**
 * The end of a body that held no server-sent event: a JSON answer (`ResponseDecoder.decodeBody`), else `PROTOCOL`
 * naming what the body began with.
 */
function* bodyWithoutEvents(text: string, response: ResponseDecoder): Generator<StreamChunk> {
  const decoded = text.trim() === '' ? undefined : response.decodeBody(text)
  if (decoded === undefined) {
    const start = text.trim().slice(0, 200)
    return yield finishError({ code: 'PROTOCOL', message: start === '' ? 'stream ended before completion' : `stream ended before completion; the body held no events: ${start}` })
  }
  yield* decoded.chunks
  if (decoded.failure !== undefined) yield finishError(decoded.failure)
}

async function* relayEvents(reader: ReadableStreamDefaultReader<Uint8Array>, watchdog: Watchdog): AsyncGenerator<StreamChunk> {
  const decoder = new TextDecoder('utf-8')
  const parser = new SseParser()
  const response = new ResponseDecoder()
  // Until the first event, the raw text is kept: a server may answer a streaming request with one JSON body.
  let raw: string | undefined = ''
  for (;;) {
    let read: Awaited<ReturnType<typeof reader.read>>
    try {
      read = await watchdog.watch(() => reader.read())
    } catch (error) {
      const interrupted = watchdog.interruption()
      if (interrupted !== undefined) return yield interrupted
      // A connection lost after the finish reason still delivered a complete response.
      if (response.finishReason !== undefined) return yield* response.complete()
      return yield finishError(networkFailure(error))
    }
    const text = read.done ? decoder.decode() : decoder.decode(read.value, { stream: true })
    if (raw !== undefined) raw = raw.length + text.length > JSON_BODY_LIMIT ? undefined : raw + text
    for (const event of parser.push(text)) {
      raw = undefined
      const decoded = response.decode(event)
      yield* decoded.chunks
      if (decoded.failure !== undefined) return yield finishError(decoded.failure)
      if (decoded.done === true) return yield* response.complete()
    }
    if (read.done) break
  }
  if (response.finishReason !== undefined) return yield* response.complete()
  if (raw !== undefined) return yield* bodyWithoutEvents(raw, response)
  yield finishError({ code: 'PROTOCOL', message: 'stream ended before completion' })
}

/** What the configured models say about `model`, or `undefined` when it is not listed. */
function modelInfo(config: Config, model: string): ModelInfo | undefined {
  const entry = config.models?.find(candidate => candidate.id === model)
  if (entry === undefined) return undefined
  return {
    ...(entry.contextWindow === undefined ? {} : { contextWindow: entry.contextWindow }),
    ...(entry.maxTokens === undefined ? {} : { maxTokens: entry.maxTokens }),
  }
}

/** An adapter for `config`; the API key is `config.apiKey`, else the environment variable `config.apiKeyEnv`. */
export function createOpenAiAdapter(config: Config): LlmAdapter {
  const apiKey = config.apiKey ?? process.env[config.apiKeyEnv]
  return {
    provider: config.provider,
    modelInfo: model => modelInfo(config, model),
    stream: request => streamCompletion(config, apiKey, request),
  }
}
