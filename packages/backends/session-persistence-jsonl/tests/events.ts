/** Small builders of valid events and headers for this package's own tests. */
import type { SessionEvent, SessionHeader, SessionId } from '@logbook/session'

/** Epoch of built events: seq `s` gets time `T0 + s`. */
export const T0 = 1_760_000_000_000

/** A raw event with envelope keys in core order. */
export function ev(type: string, seq: number, data: unknown, extra: Record<string, unknown> = {}): SessionEvent {
  return { type, seq, time: T0 + seq, data, ...extra } as unknown as SessionEvent
}

/** A version-1 header. */
export function hdr(id: string, extra: Record<string, unknown> = {}): SessionHeader {
  return { version: 1, id: id as SessionId, createdAt: T0 - 1000, cwd: '/home/user/jsonl-tests', ...extra } as SessionHeader
}

/** One complete 6-event turn starting at `seq`. */
export function turn(seq: number, n: number): SessionEvent[] {
  const user = { id: `u-${seq}`, role: 'user', content: [{ type: 'text', text: `hello ${seq}` }], source: { kind: 'user' } }
  const message = { id: `a-${seq}`, role: 'assistant', content: [{ type: 'text', text: `answer ${seq}` }],
    source: { kind: 'model', provider: 'scripted', model: 'm1' } }
  return [
    ev('turn/start', seq, { turn: n }),
    ev('user/message', seq + 1, user, { surfaceOp: 'append' }),
    ev('step/start', seq + 2, { turn: n, step: 1 }),
    ev('assistant/message', seq + 3, { turn: n, step: 1, message }, { surfaceOp: 'append' }),
    ev('step/end', seq + 4, { turn: n, step: 1 }),
    ev('turn/end', seq + 5, { turn: n, reason: { kind: 'completed' } }),
  ]
}

/** `count` complete turns from seq `seq` (turn numbers from `first`). */
export function turns(count: number, seq = 0, first = 1): SessionEvent[] {
  const out: SessionEvent[] = []
  for (let i = 0; i < count; i++) out.push(...turn(seq + 6 * i, first + i))
  return out
}

/** An open turn with `chunks` text-delta chunks in step 1 (no step/end, no turn/end). */
export function openTurnWithChunks(seq: number, n: number, chunks: number): SessionEvent[] {
  const user = { id: `u-${seq}`, role: 'user', content: [{ type: 'text', text: `go ${seq}` }], source: { kind: 'user' } }
  const out = [ev('turn/start', seq, { turn: n }), ev('user/message', seq + 1, user, { surfaceOp: 'append' }), ev('step/start', seq + 2, { turn: n, step: 1 })]
  for (let i = 0; i < chunks; i++) {
    out.push(ev('assistant/chunk', seq + 3 + i, { turn: n, step: 1, chunk: { type: 'text-delta', index: 0, text: `w${i} ` } }))
  }
  return out
}
