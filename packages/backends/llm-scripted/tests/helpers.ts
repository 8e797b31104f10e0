import type { Context } from '@deepseek-ai/cordis'
import Llm, { type LlmRequest } from '@logbook/llm'
import type { CallId, Message, MessageId, StreamChunk } from '@logbook/session'
import { testApp } from '@logbook/test-kit'
import * as Scripted from '../src/index.ts'

/** A real app with `@logbook/llm` and the scripted model configured with `config`. */
export async function boot(config: Scripted.ConfigInput): Promise<Context> {
  const { app } = testApp()
  await app.plugin(Llm)
  await app.plugin(Scripted, config)
  return app
}

export const user = (text: string, id = 'u'): Message =>
  ({ id: id as MessageId, role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text }] })

export const assistantCall = (callId: string, name: string): Message => ({
  id: 'a' as MessageId,
  role: 'assistant',
  source: { kind: 'model', provider: 'scripted', model: 'm' },
  content: [{ type: 'tool-call', id: callId as CallId, name, arguments: '{}' }],
})

export const toolResult = (callId: string, text: string): Message => ({
  id: 'r' as MessageId,
  role: 'user',
  source: { kind: 'tool', callId: callId as CallId },
  content: [{ type: 'tool-result', toolCallId: callId as CallId, content: [{ type: 'text', text }] }],
})

export function req(messages: Message[], extra: Partial<LlmRequest> = {}): LlmRequest {
  return { config: { provider: 'scripted', model: 'm' }, messages, sessionId: 's1', ...extra }
}

/** The concatenated text deltas of a stream. */
export function textOf(chunks: readonly StreamChunk[]): string {
  return chunks.map(chunk => (chunk.type === 'text-delta' ? chunk.text : '')).join('')
}
