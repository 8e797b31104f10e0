import { Context } from '@deepseek-ai/cordis'
import type { Message, MessageId, StreamChunk } from '@logbook/session'
import LlmService, { type LlmAdapter, type LlmRequest } from '../src/index.ts'

/** Drain a stream into an array. */
export async function collect(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

/** A real Cordis app with `@logbook/llm` loaded and a sink for every warning. */
export async function boot(): Promise<{ app: Context; warnings: string[] }> {
  const app = new Context()
  const warnings: string[] = []
  app.logger.exporter({
    levels: { default: 3 },
    export: message => {
      if (message.type === 'warn') warnings.push(String(message.args[0]))
    },
  })
  await app.plugin(LlmService)
  return { app, warnings }
}

/** Load a plugin that registers `adapter` on `ctx.llm`; resolves to its fiber. */
export async function registerAdapter(app: Context, adapter: LlmAdapter) {
  return await app.plugin({ name: `adapter-${adapter.provider}`, inject: ['llm'], apply: ctx => void ctx.llm.register(adapter) })
}

/** An adapter that yields `chunks` and counts its calls. */
export function fixedAdapter(provider: string, chunks: readonly StreamChunk[]): LlmAdapter & { calls: LlmRequest[] } {
  const calls: LlmRequest[] = []
  return {
    provider,
    calls,
    async *stream(request) {
      calls.push(request)
      for (const chunk of chunks) yield chunk
    },
  }
}

export function userText(id: string, text: string): Message {
  return { id: id as MessageId, role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text }] }
}

export function request(provider = 'fake', extra: Partial<LlmRequest> = {}): LlmRequest {
  return { config: { provider, model: 'm1' }, messages: [userText('u1', 'hi')], ...extra }
}
