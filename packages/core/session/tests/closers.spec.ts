import { describe, expect, it } from 'vitest'
import { openTurnClosers, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from '../src/closers.ts'
import { assertSessionEvent } from '../src/validate.ts'
import type { SessionEvent } from '../src/types.ts'

const G = 'If you retry, retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.'
const TEXT = {
  interruptedStarted: `The tool call was interrupted after it was recorded as started, and no result was durably recorded, so its outcome is unknown. ${G}`,
  interruptedNotStarted: `The tool call was interrupted before Logbook recorded it as started, so it most likely never ran. Retry it if it is still needed. ${G}`,
  forkedStarted: `The history inherited by this branch records this tool call starting but not its result. The parent session may have completed it after the fork point, so its outcome is unknown here. ${G}`,
  forkedNotStarted: `The history inherited by this branch has no record of this tool call starting. The parent session may have executed it after the fork point. ${G}`,
}

/** Builds a log from short specs, assigning seqs from 0 and times 100, 110, …. */
function log(...specs: [string, unknown, Record<string, unknown>?][]): SessionEvent[] {
  return specs.map(([type, data, extra], seq) => ({ type, seq, time: 100 + 10 * seq, data, ...extra }) as unknown as SessionEvent)
}
const append = { surfaceOp: 'append' }
const turnStart = (turn: number): [string, unknown] => ['turn/start', { turn }]
const stepStart = (turn: number, step: number): [string, unknown] => ['step/start', { turn, step }]
const stepEnd = (turn: number, step: number): [string, unknown] => ['step/end', { turn, step }]
const turnEnd = (turn: number): [string, unknown] => ['turn/end', { turn, reason: { kind: 'completed' } }]
const calls = (turn: number, step: number, ...ids: string[]): [string, unknown, Record<string, unknown>] => ['assistant/message', {
  turn, step,
  message: {
    id: `a-${ids.join('-')}`, role: 'assistant',
    content: [{ type: 'text', text: 'x' }, ...ids.map((id) => ({ type: 'tool-call', id, name: 'read', arguments: '{}' }))],
    source: { kind: 'model', provider: 'p', model: 'm' },
  },
}, append]
const toolCall = (turn: number, step: number, callId: string): [string, unknown] => ['tool/call', { turn, step, callId, name: 'read', arguments: '{}' }]
let resultIds = 0
const result = (turn: number, step: number, callId: string, extra: Record<string, unknown> = append): [string, unknown, Record<string, unknown>] => ['tool/result', {
  turn, step,
  message: {
    id: `r-${callId}-${++resultIds}`, role: 'user',
    content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: 'ok' }] }],
    source: { kind: 'tool', callId },
  },
}, extra]

const syntheticResult = (kind: string, callId: string, seq: number, time: number, turn: number, step: number, started: number | undefined, text: string): unknown => ({
  type: 'tool/result', seq, time,
  data: {
    turn, step,
    message: {
      id: `${kind}-tool-result-${callId}-${seq}`, role: 'user',
      content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: true }],
      source: { kind: 'tool', callId },
    },
    error: started === undefined
      ? { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' }
      : { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' },
  },
  surfaceOp: 'append',
  ...(started === undefined ? {} : { sourceEventSeqs: [started] }),
})

describe('openTurnClosers (01 §8)', () => {
  it('S-119 closes nothing for a balanced or empty log; an open turn, then an open step', () => {
    expect(openTurnClosers([], { kind: 'interrupted' })).toEqual([])
    expect(openTurnClosers(log(turnStart(1), stepStart(1, 1), stepEnd(1, 1), turnEnd(1)), { kind: 'interrupted' })).toEqual([])
    const openTurn = log(turnStart(1), ['user/message', { id: 'u', role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } }, append])
    expect(openTurnClosers(openTurn, { kind: 'interrupted' })).toEqual([
      { type: 'turn/end', seq: 2, time: 110, data: { turn: 1, reason: { kind: 'interrupted' } } },
    ])
    const openStep = log(turnStart(1), stepEnd(1, 1), turnEnd(1), turnStart(2), stepStart(2, 1), stepEnd(2, 1), stepStart(2, 2))
    expect(openTurnClosers(openStep, { kind: 'interrupted' })).toEqual([
      { type: 'step/end', seq: 7, time: 160, data: { turn: 2, step: 2 } },
      { type: 'turn/end', seq: 8, time: 160, data: { turn: 2, reason: { kind: 'interrupted' } } },
    ])
  })

  it('S-120 gives a requested call with no tool/call a not-started result, exact text, no sources', () => {
    const events = log(turnStart(1), stepStart(1, 1), calls(1, 1, 'c1'))
    const out = openTurnClosers(events, { kind: 'interrupted' })
    expect(out).toEqual([
      syntheticResult('interrupted', 'c1', 3, 120, 1, 1, undefined, TEXT.interruptedNotStarted),
      { type: 'step/end', seq: 4, time: 120, data: { turn: 1, step: 1 } },
      { type: 'turn/end', seq: 5, time: 120, data: { turn: 1, reason: { kind: 'interrupted' } } },
    ])
    expect((out[0] as { data: { message: { id: string } } }).data.message.id).toBe('interrupted-tool-result-c1-3')
    expect('sourceEventSeqs' in out[0]!).toBe(false)
    expect(TOOL_NOT_STARTED).toBe('TOOL_NOT_STARTED')
    // Key order as §8 writes the event, so the bytes persistence stores are fixed.
    const data = out[0]!.data as { message: { content: object[] } }
    expect([Object.keys(out[0]!), Object.keys(data), Object.keys(data.message), Object.keys(data.message.content[0]!)]).toEqual([
      ['type', 'seq', 'time', 'data', 'surfaceOp'], ['turn', 'step', 'message', 'error'], ['id', 'role', 'source', 'content'],
      ['type', 'toolCallId', 'isError', 'content'],
    ])
    for (const e of out) expect(() => assertSessionEvent(e)).not.toThrow()
  })

  it('S-120 gives a started call an outcome-unknown result citing its tool/call, in table order', () => {
    const events = log(turnStart(1), stepStart(1, 1), calls(1, 1, 'c1', 'c2', 'c3'), toolCall(1, 1, 'c2'), toolCall(1, 1, 'c1'), result(1, 1, 'c1'))
    const out = openTurnClosers(events, { kind: 'interrupted' })
    expect(out.map((e) => [e.type, e.seq])).toEqual([['tool/result', 6], ['tool/result', 7], ['step/end', 8], ['turn/end', 9]])
    expect(out[0]).toEqual(syntheticResult('interrupted', 'c2', 6, 150, 1, 1, 3, TEXT.interruptedStarted))
    expect(out[1]).toEqual(syntheticResult('interrupted', 'c3', 7, 150, 1, 1, undefined, TEXT.interruptedNotStarted))
    expect(TOOL_OUTCOME_UNKNOWN).toBe('TOOL_OUTCOME_UNKNOWN')
    for (const e of out) expect(() => assertSessionEvent(e)).not.toThrow()
  })

  it('S-121 ignores answered calls, calls of earlier steps and turns, and unrequested tool/call events', () => {
    const events = log(
      turnStart(1), stepStart(1, 1), calls(1, 1, 'old'), stepEnd(1, 1), turnEnd(1),
      turnStart(2), stepStart(2, 1), calls(2, 1, 'prev'), stepEnd(2, 1),
      stepStart(2, 2), calls(2, 2, 'done'), toolCall(2, 2, 'done'), result(2, 2, 'done'), toolCall(2, 2, 'stray'),
    )
    expect(openTurnClosers(events, { kind: 'interrupted' })).toEqual([
      { type: 'step/end', seq: 14, time: 230, data: { turn: 2, step: 2 } },
      { type: 'turn/end', seq: 15, time: 230, data: { turn: 2, reason: { kind: 'interrupted' } } },
    ])
  })

  it('S-121 a re-requested call keeps its table position but loses its started mark', () => {
    const events = log(turnStart(1), stepStart(1, 1), calls(1, 1, 'a', 'b'), toolCall(1, 1, 'a'), calls(1, 1, 'a'))
    const out = openTurnClosers(events, { kind: 'forked' })
    // `a` was re-registered by the second message: its entry is replaced (no callSeq) but keeps first position.
    expect(out.slice(0, 2).map((e) => (e.data as { message: { id: string } }).message.id)).toEqual([
      'forked-tool-result-a-5', 'forked-tool-result-b-6',
    ])
    expect((out[0]!.data as { error: { code: string } }).error.code).toBe('TOOL_NOT_STARTED')
  })

  it('S-122 replacement-origin results and messages change nothing in the pending table', () => {
    const replace = { surfaceOp: { op: 'replace', start: 2, end: 2 }, sourceEventSeqs: [2] }
    const events = log(
      turnStart(1), stepStart(1, 1), calls(1, 1, 'c1'), toolCall(1, 1, 'c1'),
      result(1, 1, 'c1', replace),
      [calls(1, 1, 'c9')[0], calls(1, 1, 'c9')[1], replace],
    )
    const out = openTurnClosers(events, { kind: 'interrupted' })
    expect(out.map((e) => [e.type, (e.data as { message?: { source: { callId: string } } }).message?.source.callId])).toEqual([
      ['tool/result', 'c1'], ['step/end', undefined], ['turn/end', undefined],
    ])
    expect(out[0]).toMatchObject({ sourceEventSeqs: [3] })
  })

  it('S-123 uses the four texts byte for byte, freezes the output, and prefixes forked ids', () => {
    const events = log(turnStart(1), stepStart(1, 1), calls(1, 1, 's', 'n'), toolCall(1, 1, 's'))
    const texts = (kind: 'interrupted' | 'forked'): string[] => openTurnClosers(events, { kind }).slice(0, 2).map((e) =>
      (e.data as { message: { content: [{ content: [{ text: string }] }] } }).message.content[0].content[0].text)
    expect(texts('interrupted')).toEqual([TEXT.interruptedStarted, TEXT.interruptedNotStarted])
    expect(texts('forked')).toEqual([TEXT.forkedStarted, TEXT.forkedNotStarted])
    const forked = openTurnClosers(events, { kind: 'forked' })
    expect(forked.map((e) => (e.data as { message?: { id: string } }).message?.id)).toEqual([
      'forked-tool-result-s-4', 'forked-tool-result-n-5', undefined, undefined,
    ])
    expect(forked.at(-1)).toEqual({ type: 'turn/end', seq: 7, time: 130, data: { turn: 1, reason: { kind: 'forked' } } })
    const stack: unknown[] = [...forked]
    let frozen = 0
    while (stack.length > 0) {
      const v = stack.pop()
      if (typeof v !== 'object' || v === null) continue
      expect(Object.isFrozen(v)).toBe(true)
      frozen++
      stack.push(...Object.values(v))
    }
    expect(frozen).toBeGreaterThan(20)
  })
})
