/** Shared test fixtures: a real Cordis app with the store and the registry, log capture, unit M, event builders. */
import type { Context } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import SessionStore, {
  type AssistantMessage, CallId, MessageId, type Session, type SessionEvent, SessionId, type TokenUsage,
  type ToolResultMessage, type UserMessage,
} from '@logbook/session'
import { testApp, thrown as kitThrown, tick } from '@logbook/test-kit'
import SessionProjections from '../src/index.ts'
import type { SessionId as SessionIdType } from '@logbook/session'
import type { ProjectionChange, ProjectionDefinition, SessionProjectionConfig } from '../src/index.ts'

/** The plugin-type name unit M counts. */
export const MARK = 'test/mark'

/** Unit M (03 §9): counts `test/mark` events; view = the count. */
export function unitM(key = 'test/m', version = 1): ProjectionDefinition<number, number> {
  return {
    key, stateVersion: version, stateSchema: Schema.natural(),
    init: () => 0,
    apply: (n, e) => ((e.type as string) === MARK ? n + 1 : n),
    view: n => n,
  }
}

/** A registry config with every built-in unit off, so a test sees only the units it registers. */
export const NO_BUILTINS = { builtins: { stats: false, todos: false, title: false } }

/** A unit whose state lists the seqs of the marks it saw (object state, so deep-equal ≠ same reference). */
export function seqList(key = 'test/seqs'): ProjectionDefinition<{ seqs: number[] }, number[]> {
  return {
    key, stateVersion: 1, stateSchema: Schema.object({ seqs: Schema.array(Schema.natural()) }),
    init: () => ({ seqs: [] }),
    apply: (s, e) => ((e.type as string) === MARK ? { seqs: [...s.seqs, e.seq] } : s),
    view: s => s.seqs,
  }
}

/** Every `onChanged` notification of `app`'s registry from now on, in order. */
export function collect(app: Context): ProjectionChange[] {
  const changes: ProjectionChange[] = []
  app.sessionProjections.onChanged(change => changes.push(change))
  return changes
}

type DeepPartial<T> = { [K in keyof T]?: Partial<T[K]> }

/** A real app: log capture (warn and above, formatted), the store with `test/mark` and `test/other` known, then the registry. */
export async function makeApp(config: DeepPartial<SessionProjectionConfig> = {}, before?: (app: Context) => void | Promise<void>): Promise<{ app: Context; logs: string[] }> {
  const { app, logs } = testApp({ level: 2 })
  await app.plugin(SessionStore)
  app.sessions.registerEventType(MARK)
  app.sessions.registerEventType('test/other')
  await before?.(app)
  await app.plugin(SessionProjections, config as SessionProjectionConfig)
  return { app, logs }
}

/** Append an event of any type name (plugin types are not in `SessionEventMap` here). */
export function appendAs(s: Session, type: string, data: unknown = {}, opts?: unknown): SessionEvent {
  const append = s.append as unknown as (this: Session, type: string, data: unknown, opts?: unknown) => SessionEvent
  return opts === undefined ? append.call(s, type, data) : append.call(s, type, data, opts)
}

/** Append one `test/mark`. */
export function mark(s: Session): SessionEvent {
  return appendAs(s, MARK, {})
}

export function userMsg(id: string, text: string | string[], kind: 'user' | 'plugin' = 'user'): UserMessage {
  const texts = typeof text === 'string' ? [text] : text
  return {
    id: MessageId(id), role: 'user', content: texts.map(t => ({ type: 'text' as const, text: t })),
    source: kind === 'user' ? { kind: 'user' } : { kind: 'plugin', plugin: 'test' },
  }
}

export function assistantMsg(id: string, calls: string[] = []): AssistantMessage {
  return {
    id: MessageId(id), role: 'assistant',
    content: [{ type: 'text', text: 'ok' }, ...calls.map(c => ({ type: 'tool-call' as const, id: CallId(c), name: 'read', arguments: '{}' }))],
    source: { kind: 'model', provider: 'p', model: 'm' },
  }
}

export function resultMsg(id: string, callId: string, isError = false): ToolResultMessage {
  return {
    id: MessageId(id), role: 'user', source: { kind: 'tool', callId: CallId(callId) },
    content: [{ type: 'tool-result', toolCallId: CallId(callId), content: [{ type: 'text', text: 'r' }], ...(isError ? { isError: true } : {}) }],
  }
}

/** One complete turn: prompt, one step with `calls` tool calls (results), a final step with text. */
export function turn(s: Session, n: number, calls: string[] = [], usage?: TokenUsage): void {
  s.append('turn/start', { turn: n })
  s.append('user/message', userMsg(`u${n}`, `prompt ${n}`), { surfaceOp: 'append' })
  s.append('step/start', { turn: n, step: 1 })
  s.append('assistant/message', { turn: n, step: 1, message: assistantMsg(`a${n}`, calls), ...(usage ? { usage } : {}) }, { surfaceOp: 'append' })
  for (const c of calls) {
    s.append('tool/call', { turn: n, step: 1, callId: CallId(c), name: 'read', arguments: '{}' })
    s.append('tool/result', { turn: n, step: 1, message: resultMsg(`r${c}`, c) }, { surfaceOp: 'append' })
  }
  s.append('step/end', { turn: n, step: 1 })
  s.append('turn/end', { turn: n, reason: { kind: 'completed' } })
}

export const sid: (id: string) => SessionIdType = SessionId

/** The error `fn` throws (the test fails when it does not throw). */
export const thrown = (fn: () => unknown): Error & { code?: string } => kitThrown(fn)

/** Resolve on the next `projection/checkpointed` event of `app`. */
export function nextCheckpoint(app: Context): Promise<{ sessionId: string; seq: number; keys: readonly string[] }> {
  return new Promise(resolve => {
    const dispose = app.on('projection/checkpointed', event => {
      dispose()
      resolve(event)
    })
  })
}

/** Let queued microtasks and already-due I/O callbacks run. */
export const settle = (): Promise<void> => tick()
