/**
 * Builders of valid stored logs for the cases: headers, complete turns, open tool steps, chunk runs. Every builder
 * takes the first seq and returns fresh, unfrozen events whose times grow with their seq.
 */

import type { SessionEvent, SessionHeader, SessionId } from '@logbook/session'

/** The fixed epoch the builders stamp: event `seq` gets `T0 + seq`. */
export const T0 = 1_750_000_000_000

/** The cwd every built header carries unless told otherwise. */
export const CWD = '/home/user/conformance'

/** A raw event with envelope keys in core order; `extra` holds `surfaceOp`, `sourceEventSeqs` or `ignorable`. */
export function event(type: string, seq: number, data: unknown, extra: Record<string, unknown> = {}): SessionEvent {
  return { type, seq, time: T0 + seq, data, ...extra } as unknown as SessionEvent
}

/** A version-1 header for `id` (createdAt `T0 - 1000`, cwd `CWD`) with `extra` fields appended. */
export function header(id: string, extra: Record<string, unknown> = {}): SessionHeader {
  return { version: 1, id: id as SessionId, createdAt: T0 - 1000, cwd: CWD, ...extra } as SessionHeader
}

/** A user message event. */
export function userMessage(seq: number, text = `hello ${seq}`): SessionEvent {
  const data = { id: `u-${seq}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }
  return event('user/message', seq, data, { surfaceOp: 'append' })
}

/** An assistant message; `calls` become tool-call blocks after the text. */
export function assistantMessage(seq: number, turn: number, step: number, text = `answer ${seq}`, calls: readonly string[] = []): SessionEvent {
  const content: unknown[] = [{ type: 'text', text }]
  for (const id of calls) content.push({ type: 'tool-call', id, name: 'read', arguments: `{"path":"${id}"}` })
  const message = { id: `a-${seq}`, role: 'assistant', content, source: { kind: 'model', provider: 'scripted', model: 'm1' } }
  return event('assistant/message', seq, { turn, step, message }, { surfaceOp: 'append' })
}

/** A `tool/call` record: the call has started. */
export function toolCall(seq: number, turn: number, step: number, callId: string): SessionEvent {
  return event('tool/call', seq, { turn, step, callId, name: 'read', arguments: `{"path":"${callId}"}` })
}

/** A successful `tool/result` for `callId`. */
export function toolResult(seq: number, turn: number, step: number, callId: string): SessionEvent {
  const message = {
    id: `r-${seq}`, role: 'user', source: { kind: 'tool', callId },
    content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: `result of ${callId}` }] }],
  }
  return event('tool/result', seq, { turn, step, message }, { surfaceOp: 'append' })
}

/** A text-delta chunk. */
export function chunk(seq: number, turn: number, step: number, text = `t${seq} `, index = 0): SessionEvent {
  return event('assistant/chunk', seq, { turn, step, chunk: { type: 'text-delta', index, text } })
}

/** One complete 6-event turn: turn/start, user/message, step/start, assistant/message, step/end, turn/end. */
export function completeTurn(seq: number, turn: number): SessionEvent[] {
  return [
    event('turn/start', seq, { turn }),
    userMessage(seq + 1),
    event('step/start', seq + 2, { turn, step: 1 }),
    assistantMessage(seq + 3, turn, 1),
    event('step/end', seq + 4, { turn, step: 1 }),
    event('turn/end', seq + 5, { turn, reason: { kind: 'completed' } }),
  ]
}

/** `turns` complete turns from seq 0 (turn numbers from 1): `6 * turns` events. */
export function completeTurns(turns: number, seq = 0, firstTurn = 1): SessionEvent[] {
  const out: SessionEvent[] = []
  for (let i = 0; i < turns; i++) out.push(...completeTurn(seq + 6 * i, firstTurn + i))
  return out
}

/**
 * An open turn whose step requested `started` and `requested` calls but recorded `tool/call` only for `started`:
 * turn/start, user/message, step/start, assistant/message (all calls), then one `tool/call` per started call.
 */
export function openToolStep(seq: number, turn: number, started: readonly string[], requested: readonly string[] = []): SessionEvent[] {
  const out = [
    event('turn/start', seq, { turn }),
    userMessage(seq + 1),
    event('step/start', seq + 2, { turn, step: 1 }),
    assistantMessage(seq + 3, turn, 1, 'calling tools', [...started, ...requested]),
  ]
  for (const id of started) out.push(toolCall(seq + out.length, turn, 1, id))
  return out
}

/** `n` text-delta chunks of one run (same turn, step, index), from `seq`. */
export function chunkRun(seq: number, n: number, turn = 1, step = 1, text?: (i: number) => string): SessionEvent[] {
  const out: SessionEvent[] = []
  for (let i = 0; i < n; i++) out.push(chunk(seq + i, turn, step, text ? text(i) : `t${i} `))
  return out
}

/** Turn/start, user/message, step/start, then `n` chunks: an open step streaming text. */
export function streamingStep(seq: number, turn: number, n: number): SessionEvent[] {
  return [
    event('turn/start', seq, { turn }),
    userMessage(seq + 1),
    event('step/start', seq + 2, { turn, step: 1 }),
    ...chunkRun(seq + 3, n, turn, 1),
  ]
}

/** Append a built event to a live session (same type, data and options; the session assigns seq and time). */
export function appendLive(session: { append: unknown }, built: SessionEvent): SessionEvent {
  const e = built as SessionEvent & { surfaceOp?: unknown; sourceEventSeqs?: unknown }
  const opts: Record<string, unknown> = {}
  if (e.surfaceOp !== undefined) opts['surfaceOp'] = e.surfaceOp
  if (e.sourceEventSeqs !== undefined) opts['sourceEventSeqs'] = e.sourceEventSeqs
  if (e.ignorable !== undefined) opts['ignorable'] = e.ignorable
  const append = session.append as (type: string, data: unknown, opts?: unknown) => SessionEvent
  return Object.keys(opts).length > 0 ? append.call(session, e.type, e.data, opts) : append.call(session, e.type, e.data)
}
