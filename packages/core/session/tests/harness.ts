/** Shared builders for the session-core behaviour tests: a real Cordis app with the store, and event payloads. */

import { Context, Logger, type Exporter } from '@deepseek-ai/cordis'
import SessionStore, {
  type AssistantMessage, CallId, MessageId, Session, type SessionEvent, SessionId, type SystemMessage,
  type ToolResultMessage, type UserMessage,
} from '../src/index.ts'

/** A real app with the store loaded and every log line (warn and above) captured as formatted text. */
export async function makeApp(): Promise<{ app: Context; store: SessionStore; logs: string[] }> {
  const app = new Context()
  const logs: string[] = []
  const exporter: Exporter = {
    colors: false,
    levels: { default: 3 },
    export: message => logs.push(Logger.format(exporter, message)),
  }
  app.logger.exporter(exporter)
  await app.plugin(SessionStore)
  return { app, store: app.sessions, logs }
}

/** A published session `id` in a fresh app, with `plugin/x` registered. */
export async function published(id = 's'): Promise<{ app: Context; store: SessionStore; logs: string[]; s: Session }> {
  const env = await makeApp()
  env.store.registerEventType('plugin/x')
  return { ...env, s: env.store.create(SessionId(id)) }
}

export const sid = SessionId

export function userMsg(id: string, text = 'hi'): UserMessage {
  return { id: MessageId(id), role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }
}

export function systemMsg(id: string, text = 'be brief'): SystemMessage {
  return { id: MessageId(id), role: 'system', content: [{ type: 'text', text }], source: { kind: 'system' } }
}

export function assistantMsg(id: string, text = 'ok', calls: string[] = []): AssistantMessage {
  return {
    id: MessageId(id), role: 'assistant',
    content: [
      ...(text === '' ? [] : [{ type: 'text' as const, text }]),
      ...calls.map(call => ({ type: 'tool-call' as const, id: CallId(call), name: 'read', arguments: '{}' })),
    ],
    source: { kind: 'model', provider: 'p', model: 'm' },
  }
}

export function resultMsg(id: string, callId: string, text = 'done'): ToolResultMessage {
  return {
    id: MessageId(id), role: 'user', source: { kind: 'tool', callId: CallId(callId) },
    content: [{ type: 'tool-result', toolCallId: CallId(callId), content: [{ type: 'text', text }] }],
  }
}

/** Append an event of any type name, untyped: plugin types are not in `SessionEventMap` here. */
export function appendAs(s: Session, type: string, data: unknown = {}, opts?: unknown): SessionEvent {
  const append = s.append as unknown as (this: Session, type: string, data: unknown, opts?: unknown) => SessionEvent
  return opts === undefined ? append.call(s, type, data) : append.call(s, type, data, opts)
}

/** Append a user message with `'append'` and return its seq. */
export function appendUser(s: Session, id: string, text = 'hi'): number {
  return s.append('user/message', userMsg(id, text), { surfaceOp: 'append' }).seq
}

/** Append a system message with `'append'` and return its seq. */
export function appendSystem(s: Session, id: string, text = 'be brief'): number {
  return s.append('system/message', systemMsg(id, text), { surfaceOp: 'append' }).seq
}

/** The error `fn` throws (the test fails when it does not throw). */
export function thrown(fn: () => unknown): { code?: string; message: string; index?: number; name: string } {
  try {
    fn()
  } catch (error) {
    return error as { code?: string; message: string; index?: number; name: string }
  }
  throw new Error('expected a throw')
}

/** Assert `fn` throws a `SessionError` with exactly this code and message. */
export function expectError(fn: () => unknown, code: string, message: string): { index?: number } {
  const error = thrown(fn)
  if (error.code !== code || error.message !== message) {
    throw new Error(`expected ${code} "${message}", got ${String(error.code)} "${error.message}"`)
  }
  return error
}

/** A plain untyped event value, for seeds. */
export function ev(type: string, seq: number, data: unknown, extra: Record<string, unknown> = {}, time = 100): SessionEvent {
  return { type, seq, time, data, ...extra } as unknown as SessionEvent
}
