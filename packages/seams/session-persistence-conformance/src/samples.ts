/**
 * Small samples a backend's own tests build logs from, beside the contract suite: a header and a complete turn whose
 * times, cwd and chunks those tests assert on (the suite's builders in events.ts stamp others).
 */
import { SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from '@logbook/session'

/** A valid header of `id` (`createdAt` 1,700,000,000,000, `cwd` `/home/user/app`) with `extra` fields over it. */
export function sampleHeader(id: string, extra: Partial<SessionHeader> = {}): SessionHeader {
  return { version: SESSION_FORMAT_VERSION, id, createdAt: 1_700_000_000_000, cwd: '/home/user/app', ...extra } as SessionHeader
}

/**
 * A complete one-step turn `turnNo` from `seq`: 6 events 10 ms apart from `time`, 3 of them text chunks that pack into
 * one row.
 */
export function sampleTurn(seq: number, turnNo = 1, time = 1_700_000_001_000): SessionEvent[] {
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
