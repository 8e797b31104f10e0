import type { Context } from '@deepseek-ai/cordis'
import type { Message, MessageId, StreamChunk } from '@logbook/session'
import { testApp, textsOf } from '@logbook/test-kit'
import LlmService, { type LlmAdapter, type LlmRequest } from '../src/index.ts'

/** A real Cordis app with `@logbook/llm` loaded; `warnings()` reads every warning logged so far. */
export async function boot(): Promise<{ app: Context; warnings: () => string[] }> {
  const { app, records } = testApp()
  await app.plugin(LlmService)
  return { app, warnings: () => textsOf(records, 'warn') }
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
