import type { Context } from '@deepseek-ai/cordis'
import Llm, { type LlmRequest } from '@logbook/llm'
import type { Message, MessageId, StreamChunk } from '@logbook/session'
import { testApp } from '@logbook/test-kit'
import * as OpenAi from '../src/index.ts'

/** A real app with `@logbook/llm` and the OpenAI adapter configured with `config`. */
export async function boot(config: OpenAi.ConfigInput): Promise<Context> {
  const { app } = testApp()
  await app.plugin(Llm)
  await app.plugin(OpenAi, config)
  return app
}

export const user = (text: string): Message =>
  ({ id: 'u1' as MessageId, role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text }] })

export function req(extra: Partial<LlmRequest> = {}): LlmRequest {
  return { config: { provider: 'openai', model: 'gpt-test' }, messages: [user('hi')], ...extra }
}

export function textOf(chunks: readonly StreamChunk[], type: 'text-delta' | 'reasoning-delta' = 'text-delta'): string {
  return chunks.map(chunk => (chunk.type === type ? chunk.text : '')).join('')
}

export function finishOf(chunks: readonly StreamChunk[]): StreamChunk | undefined {
  return chunks[chunks.length - 1]
}
