/** Small event builders for the backend's own tests: the shared header and turn samples, and live turn appends. */
import type { Session } from '@logbook/session'

/** The samples the row-store backends' tests share: a valid header and a complete 6-event turn. */
export { sampleHeader as header, sampleTurn as turn } from '@logbook/session-persistence-conformance'

/** Append one complete turn to a live session (the session assigns seqs and times). */
export function appendLiveTurn(session: Session, turnNo: number): void {
  const append = session.append.bind(session) as (type: string, data: unknown) => unknown
  append('turn/start', { turn: turnNo })
  append('step/start', { turn: turnNo, step: 1 })
  for (const text of ['Hel', 'lo', '!']) append('assistant/chunk', { turn: turnNo, step: 1, chunk: { type: 'text-delta', index: 0, text } })
  append('turn/end', { turn: turnNo, reason: { kind: 'completed' } })
}
