/** Shared builders for the session-core behaviour tests: a real Cordis app with the store, and event payloads. */

import type { Context } from '@deepseek-ai/cordis'
import { testApp, thrown as kitThrown } from '@logbook/test-kit'
import SessionStore, {
  type AssistantMessage, CallId, deriveEventMessage, foldSurface, type Message, MessageId, Session, type SessionEvent,
  SessionId, type SystemMessage, type ToolResultMessage, type UserMessage,
} from '../src/index.ts'

/** A real app with the store loaded and every log line captured as formatted text. */
export async function makeApp(): Promise<{ app: Context; store: SessionStore; logs: string[] }> {
  const { app, logs } = testApp()
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

type Thrown = { code?: string; message: string; index?: number; name: string }

/** The error `fn` throws (the test fails when it does not throw). */
export const thrown = (fn: () => unknown): Thrown => kitThrown<Thrown>(fn)

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

/** The options of a surface `'append'`. */
export const APPEND = { surfaceOp: 'append' } as const

/** A user message as a plain JSON literal (unbranded id), for untyped appends. */
export const plainUser = (id: string, text = 'hello') =>
  ({ id, role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text }] })

/** An assistant message as a plain JSON literal: a text block, then one `read` tool call per id in `calls`. */
export const plainAssistant = (id: string, calls: string[] = [], text = 'ok') => ({
  id, role: 'assistant', source: { kind: 'model', provider: 'p', model: 'm' },
  content: [{ type: 'text', text }, ...calls.map(c => ({ type: 'tool-call', id: c, name: 'read', arguments: '{}' }))],
})

/** The messages a from-scratch fold of `events` derives: what the incremental message cache must equal. */
export function fromScratch(events: readonly SessionEvent[]): Message[] {
  return foldSurface(events).nodes.map(seq => deriveEventMessage(events[seq]!)).filter((m): m is Message => m !== null)
}

/** How many calls of each array-copying path the spies of `spyArrayCopies` counted. */
export interface CopyCounts {
  slice: number
  concat: number
  iterator: number
  from: number
}

/**
 * Spy on the four array-copying paths (`Array.prototype.slice`, `concat`, `[Symbol.iterator]`, `Array.from`): a call
 * counts when `isLong` holds of its receiver (`concat`, the iterator), of its source (`Array.from`) and, for `slice`,
 * of its receiver or of its result as `slice` says. Every call still runs the original; `restore()` puts them back.
 */
export function spyArrayCopies(
  isLong: (value: unknown) => boolean, slice: 'receiver' | 'result',
): { readonly counts: CopyCounts; restore(): void } {
  const proto = Array.prototype as unknown as Record<PropertyKey, (...args: unknown[]) => unknown>
  const originals = { slice: proto['slice']!, concat: proto['concat']!, iterator: proto[Symbol.iterator]!, from: Array.from }
  const counts: CopyCounts = { slice: 0, concat: 0, iterator: 0, from: 0 }
  proto['slice'] = slice === 'receiver'
    ? function (this: unknown, ...args: unknown[]) {
      if (isLong(this)) counts.slice++
      return originals.slice.apply(this, args)
    }
    : function (this: unknown, ...args: unknown[]) {
      const out = originals.slice.apply(this, args)
      if (isLong(out)) counts.slice++
      return out
    }
  proto['concat'] = function (this: unknown, ...args: unknown[]) {
    if (isLong(this)) counts.concat++
    return originals.concat.apply(this, args)
  }
  proto[Symbol.iterator] = function (this: unknown) {
    if (isLong(this)) counts.iterator++
    return originals.iterator.call(this)
  }
  Array.from = function (this: unknown, ...args: unknown[]) {
    if (isLong(args[0])) counts.from++
    return (originals.from as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof Array.from
  return {
    counts,
    restore() {
      proto['slice'] = originals.slice
      proto['concat'] = originals.concat
      proto[Symbol.iterator] = originals.iterator
      Array.from = originals.from
    },
  }
}
