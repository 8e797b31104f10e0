/**
 * Closers for an open turn (01 §8, decision D5), shared by crash repair (`interrupted`) and fork (`forked`): one scan
 * finds the open turn, step and pending calls, then synthetic results, `step/end` and `turn/end` close them.
 */
import { deepFreeze } from './json.ts'
import type { CallId, CloserCause, SessionEvent, ToolResultMessage } from './types.ts'

/** The error code of a synthetic result for a call that was requested but never recorded as started. */
export const TOOL_NOT_STARTED = 'TOOL_NOT_STARTED'
/** The error code of a synthetic result for a call recorded as started whose result was never recorded. */
export const TOOL_OUTCOME_UNKNOWN = 'TOOL_OUTCOME_UNKNOWN'

const GUIDANCE = 'If you retry, retry only if the operation is read-only or idempotent; if it may have side effects, ' +
  'first verify external state or ask the user. Do not retry blindly.'

const TEXTS: { readonly [K in CloserCause['kind']]: { readonly started: string; readonly notStarted: string } } = {
  interrupted: {
    started: 'The tool call was interrupted after it was recorded as started, and no result was durably recorded, ' +
      'so its outcome is unknown.',
    notStarted: 'The tool call was interrupted before Logbook recorded it as started, so it most likely never ran. ' +
      'Retry it if it is still needed.',
  },
  forked: {
    started: 'The history inherited by this branch records this tool call starting but not its result. The parent ' +
      'session may have completed it after the fork point, so its outcome is unknown here.',
    notStarted: 'The history inherited by this branch has no record of this tool call starting. The parent session ' +
      'may have executed it after the fork point.',
  },
}

interface Pending { readonly step: number; callSeq?: number }
const isTurnBoundary = (type: string): boolean => type === 'turn/start' || type === 'turn/end'
type Loose = { readonly [key: string]: unknown }

/**
 * The events that close the turn left open at the end of `events`, fresh and deeply frozen, starting at
 * `last.seq + 1` with `last.time`: a synthetic error result per pending call (table order), `step/end` if a step is
 * open, then `turn/end {kind: cause.kind}`; `[]` when no turn is open. The input is not validated.
 */
export function openTurnClosers(events: readonly SessionEvent[], cause: CloserCause): SessionEvent[] {
  // Every `turn/start` and `turn/end` resets the whole scan state, so the scan starts at the last of them: nothing
  // before it can change the result (a restored log or a fork prefix is walked back only to its last boundary).
  let from = events.length - 1
  while (from >= 0 && !isTurnBoundary(events[from]!.type)) from--
  if (from < 0 || events[from]!.type === 'turn/end') return []
  let openTurn: number | null = null
  let openStep: number | null = null
  const pending = new Map<string, Pending>()
  for (let i = from; i < events.length; i++) {
    const event = events[i]!
    const data = event.data as Loose
    switch (event.type) {
      case 'turn/start':
        openTurn = data.turn as number
        openStep = null
        pending.clear()
        break
      case 'turn/end':
        openTurn = null
        openStep = null
        pending.clear()
        break
      case 'step/start':
        openStep = data.step as number
        break
      case 'step/end':
        openStep = null
        pending.clear()
        break
      case 'assistant/message':
        if (event.surfaceOp === 'append') {
          const content = (data.message as Loose | undefined)?.content
          if (Array.isArray(content)) {
            for (const block of content as Loose[]) {
              if (block?.type === 'tool-call') pending.set(block.id as string, { step: data.step as number })
            }
          }
        }
        break
      case 'tool/call': {
        const entry = pending.get(data.callId as string)
        if (entry !== undefined) entry.callSeq = event.seq
        break
      }
      case 'tool/result':
        if (event.surfaceOp === 'append') {
          const source = (data.message as Loose | undefined)?.source as Loose | undefined
          pending.delete(source?.callId as string)
        }
        break
      default:
        break
    }
  }
  const last = events[events.length - 1]
  if (openTurn === null || last === undefined) return []
  const turn = openTurn
  const time = last.time
  let seq = last.seq + 1
  const texts = TEXTS[cause.kind]
  const out: SessionEvent[] = []
  for (const [callId, entry] of pending) {
    const started = entry.callSeq !== undefined
    const text = `${started ? texts.started : texts.notStarted} ${GUIDANCE}`
    // Key order as written in 01 §8.
    const message: ToolResultMessage = {
      id: `${cause.kind}-tool-result-${callId}-${seq}` as ToolResultMessage['id'],
      role: 'user',
      source: { kind: 'tool', callId: callId as CallId },
      content: [{ type: 'tool-result', toolCallId: callId as CallId, isError: true, content: [{ type: 'text', text }] }],
    }
    const error = started
      ? { name: 'ToolOutcomeUnknownError', code: TOOL_OUTCOME_UNKNOWN }
      : { name: 'ToolNotStartedError', code: TOOL_NOT_STARTED }
    const data = { turn, step: entry.step, message, error }
    out.push(started
      ? { type: 'tool/result', seq, time, data, surfaceOp: 'append', sourceEventSeqs: [entry.callSeq as number] }
      : { type: 'tool/result', seq, time, data, surfaceOp: 'append' })
    seq++
  }
  if (openStep !== null) out.push({ type: 'step/end', seq: seq++, time, data: { turn, step: openStep } })
  out.push({ type: 'turn/end', seq, time, data: { turn, reason: { kind: cause.kind } } })
  for (const e of out) deepFreeze(e)
  return out
}
