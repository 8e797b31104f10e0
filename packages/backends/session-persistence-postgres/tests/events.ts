/** Small event builders for the backend's own tests: headers, complete turns, and live turn appends. */
import { SESSION_FORMAT_VERSION, type Session, type SessionEvent, type SessionHeader } from '@logbook/session'

/** A valid header of `id`. */
export function header(id: string, extra: Partial<SessionHeader> = {}): SessionHeader {
  return { version: SESSION_FORMAT_VERSION, id, createdAt: 1_700_000_000_000, cwd: '/home/user/app', ...extra } as SessionHeader
}

/** A complete one-step turn `turnNo` from `seq` (6 events, 3 of them chunks that pack into one row). */
export function turn(seq: number, turnNo = 1, time = 1_700_000_001_000): SessionEvent[] {
  const t = (i: number): number => time + i * 10
  const base = { turn: turnNo, step: 1 }
  const chunk = (i: number, text: string) => ({
    type: 'assistant/chunk', seq: seq + i, time: t(i), data: { ...base, chunk: { type: 'text-delta', index: 0, text } },
  })
  return [
    { type: 'turn/start', seq, time: t(0), data: { turn: turnNo } },
    { type: 'step/start', seq: seq + 1, time: t(1), data: base },
    chunk(2, 'Hel'),
    chunk(3, 'lo'),
    chunk(4, '!'),
    { type: 'turn/end', seq: seq + 5, time: t(5), data: { turn: turnNo, reason: { kind: 'completed' } } },
  ] as unknown as SessionEvent[]
}

/** Append one complete turn to a live session (the session assigns seqs and times). */
export function appendLiveTurn(session: Session, turnNo: number): void {
  const append = session.append.bind(session) as (type: string, data: unknown) => unknown
  append('turn/start', { turn: turnNo })
  append('step/start', { turn: turnNo, step: 1 })
  for (const text of ['Hel', 'lo', '!']) append('assistant/chunk', { turn: turnNo, step: 1, chunk: { type: 'text-delta', index: 0, text } })
  append('turn/end', { turn: turnNo, reason: { kind: 'completed' } })
}
