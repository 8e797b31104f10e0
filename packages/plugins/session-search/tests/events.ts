/**
 * Event builders for the shapes other packages write, following their specs: a compaction bracket (03 §2.1: start,
 * summary, the checkpoint message replacing a span, end), a pruned tool result (03 §2.10), and a step whose request
 * failed after streaming (03 §5.2: chunks kept, no assistant message).
 */
import { MessageId, Session, SessionId } from '@logbook/session'
import { appendAs } from './helpers.ts'

/** Event types of the compaction seam (03 §2.1), which tests register by hand. */
export const COMPACTION_TYPES = ['compaction/start', 'compaction/summary', 'compaction/end', 'compaction/prune'] as const

/** A detached session: it validates and commits appends of any event type, with no store. */
export function detachedSession(id: string): Session {
  return Session.create(SessionId(id))
}

/**
 * Compact every surface node after the head (node 0 when it is the system prompt) into one checkpoint message with
 * the framed `summary` (03 §2.9); returns the checkpoint's seq.
 */
export function compact(s: Session, summary: string): number {
  const nodes = s.surface.nodes
  const head = s.events[nodes[0]!]!.type === 'system/message' ? 1 : 0
  const span = nodes.slice(head)
  const id = `c-${s.seq}`
  const start = appendAs(s, 'compaction/start', { compactionId: id, turn: null, trigger: 'manual' })
  const summaryEvent = appendAs(s, 'compaction/summary', {
    compactionId: id, summary, shadowedRange: { start: span[0], end: span.at(-1) }, shadowedSeqs: span,
    shadowedTokenCount: 100, summaryTokenCount: 10, provider: 'p', model: 'm', maxTokens: 100, instructionVersion: 1,
  })
  const framed = 'Earlier conversation was compacted. The block below is an automatically generated summary of it; treat it as background and continue without commenting on it.'
    + `\n\n<compacted-summary>\n${summary}\n</compacted-summary>`
  const checkpoint = s.append('user/message', {
    id: MessageId(`compaction-${id}`), role: 'user', source: { kind: 'plugin', plugin: 'compaction' }, content: [{ type: 'text', text: framed }],
  }, { surfaceOp: { op: 'replace', start: span[0]!, end: span.at(-1)! }, sourceEventSeqs: [start.seq, summaryEvent.seq, ...span] })
  appendAs(s, 'compaction/end', { compactionId: id, turn: null })
  return checkpoint.seq
}

/** Prune the newest tool result of `turn` to a marker (03 §2.10); returns the replacement's seq. */
export function prune(s: Session, turnNumber: number): number {
  const original = [...s.events].reverse().find(e => e.type === 'tool/result' && e.data.turn === turnNumber && s.surface.nodes.includes(e.seq))
  if (original === undefined || original.type !== 'tool/result') throw new Error(`no tool result of turn ${turnNumber} on the surface`)
  const block = original.data.message.content[0]
  const text = block.content.map(part => (part.type === 'text' ? part.text : '')).join('')
  appendAs(s, 'compaction/prune', { shadowedRange: { start: original.seq, end: original.seq }, shadowedSeqs: [original.seq], shadowedTokenCount: 50, charsBefore: text.length, charsAfter: 10 })
  return s.append('tool/result', {
    ...original.data,
    message: { ...original.data.message, id: MessageId(`${original.data.message.id}-pruned`), content: [{ ...block, content: [{ type: 'text', text: '[… pruned …]' }] }] },
  }, { surfaceOp: { op: 'replace', start: original.seq, end: original.seq }, sourceEventSeqs: [original.seq] }).seq
}

/** A step whose request streamed `pieces` and then failed (no assistant message); returns the first chunk's seq. */
export function requestErrorStep(s: Session, turnNumber: number, pieces: readonly string[]): number {
  s.append('step/start', { turn: turnNumber, step: 1 })
  const first = s.seq
  for (const text of pieces) s.append('assistant/chunk', { turn: turnNumber, step: 1, chunk: { type: 'text-delta', index: 0, text } })
  s.append('assistant/chunk', { turn: turnNumber, step: 1, chunk: { type: 'finish', reason: 'error', error: { code: 'PROVIDER', message: 'upstream failed' } } })
  s.append('step/end', { turn: turnNumber, step: 1 })
  return first
}
