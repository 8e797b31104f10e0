/**
 * `ctx.llm`: the adapter registry and the one entry point for model requests (spec 03 §3.1).
 */

import { type Context, Service } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import type { StreamChunk } from '@logbook/session'
import { LlmError } from './errors.ts'
import { normalizeStream } from './stream.ts'
import type { LlmAdapter, LlmRequest, ModelInfo } from './types.ts'

function assertAdapter(adapter: LlmAdapter): void {
  if (typeof adapter !== 'object' || adapter === null) throw new TypeError('adapter must be an object')
  if (typeof adapter.provider !== 'string' || adapter.provider === '') {
    throw new TypeError('adapter provider must be a non-empty string')
  }
  if (typeof adapter.stream !== 'function') throw new TypeError(`adapter "${adapter.provider}" has no stream method`)
}

/**
 * The model seam service (ctx key `llm`). Adapters register per provider; `stream` runs one normalised attempt
 * and never retries.
 */
export class LlmService extends Service {
  /** The plugin has no configuration. */
  static readonly Config = Schema.object({})

  // Not `#private`: Cordis hands callers a proxy of the service, and proxies cannot reach `#fields`.
  private readonly adapters = new Map<string, LlmAdapter>()

  constructor(ctx: Context) {
    super(ctx, 'llm')
  }

  /**
   * Register `adapter` under its provider, owned by the calling plugin: the disposer (also run when that plugin
   * unloads) removes it.
   * @throws LlmError `DUPLICATE_PROVIDER` when the provider already has an adapter; nothing changes.
   */
  register(adapter: LlmAdapter): () => void {
    assertAdapter(adapter)
    const { provider } = adapter
    if (this.adapters.has(provider)) {
      throw new LlmError('DUPLICATE_PROVIDER', `provider "${provider}" already has a model adapter`)
    }
    const adapters = this.adapters
    const dispose = this.ctx.effect(() => {
      adapters.set(provider, adapter)
      return () => {
        if (adapters.get(provider) === adapter) adapters.delete(provider)
      }
    }, `llm.register(${JSON.stringify(provider)})`)
    return () => void dispose()
  }

  /** The registered provider names, in registration order. */
  providers(): string[] {
    return [...this.adapters.keys()]
  }

  /** What the provider's adapter reports for `model`; `undefined` when either is unknown or the adapter is silent. */
  modelInfo(provider: string, model: string): ModelInfo | undefined {
    return this.adapters.get(provider)?.modelInfo?.(model) ?? undefined
  }

  /**
   * One model attempt as a lazy stream: nothing happens before the first pull; then `llm/before-stream` is awaited
   * (fail closed) and the adapter's output is normalised — at most one `usage`, exactly one `finish`, last.
   * Failures are in-band `finish error` chunks; the returned stream never throws.
   */
  stream(request: LlmRequest): AsyncIterable<StreamChunk> {
    const adapters = this.adapters
    const ctx = this.ctx
    return normalizeStream(request, {
      adapterFor: provider => adapters.get(provider),
      beforeStream: req => ctx.parallel('llm/before-stream', req),
      warn: message => ctx.logger('llm').warn(message),
    })
  }
}
