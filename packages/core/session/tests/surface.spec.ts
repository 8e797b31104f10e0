import { describe, expect, it } from 'vitest'
import {
  foldSurface, isAppendSurfaceEvent, isReplacementSurfaceEvent, isSurfaceEvent, Session, type SessionEvent, type SurfaceOp,
  type ToolResultMessage,
} from '../src/index.ts'
import { appendAs,
  appendSystem, appendUser, assistantMsg, ev, expectError, published, resultMsg, sid, systemMsg, thrown, userMsg,
} from './harness.ts'

const SURFACE = 'INVALID_SURFACE'
const replace = (start: number, end: number): SurfaceOp => ({ op: 'replace', start, end })
const fresh = (): Session => Session.create(sid('s'))

/** A session whose nodes are `count` user messages at seqs 0…count-1. */
function users(count: number): Session {
  const s = fresh()
  for (let i = 0; i < count; i++) appendUser(s, `u${i}`)
  return s
}

function replaceUser(s: Session, id: string, start: number, end: number, sources?: number[]): SessionEvent {
  return s.append('user/message', userMsg(id, 'summary'),
    sources === undefined ? { surfaceOp: replace(start, end) } : { surfaceOp: replace(start, end), sourceEventSeqs: sources })
}

function unchanged(s: Session, act: () => unknown, message: string): void {
  const before = s.surface
  const seq = s.seq
  expectError(act, SURFACE, message)
  expect(s.surface).toBe(before)
  expect(s.seq).toBe(seq)
}

describe('event-local surface rules (V1–V10)', () => {
  it('S-049 a non-surface type carrying surfaceOp is V1, carrying sourceEventSeqs is V2', () => {
    const s = fresh()
    unchanged(s, () => s.append('turn/start', { turn: 1 }, { surfaceOp: 'append' } as never),
      'event "turn/start" is not a surface type and cannot carry surfaceOp')
    unchanged(s, () => s.append('turn/start', { turn: 1 }, { sourceEventSeqs: [0] } as never),
      'event "turn/start" is not a surface type and cannot carry sourceEventSeqs')
  })

  it('S-050 a surface event without surfaceOp is V3, live and in a seed', () => {
    const s = fresh()
    unchanged(s, () => s.append('user/message', userMsg('u'), undefined as never),
      'event "user/message" is a surface type and requires surfaceOp')
    const error = expectError(() => Session.create(sid('s'), { seed: [ev('user/message', 0, userMsg('u'))] }), SURFACE,
      'seed event at index 0: event "user/message" is a surface type and requires surfaceOp')
    expect(error.index).toBe(0)
  })

  it('S-051 a bogus op is V4; a malformed replace is V5', () => {
    const s = users(1)
    unchanged(s, () => s.append('user/message', userMsg('x'), { surfaceOp: 'bogus' as never }),
      'event "user/message": invalid surfaceOp')
    unchanged(s, () => s.append('user/message', userMsg('x'), { surfaceOp: replace(-1, 0), sourceEventSeqs: [0] }),
      'event "user/message": invalid replace surfaceOp')
    unchanged(s, () => s.append('user/message', userMsg('x'),
      { surfaceOp: { op: 'replace', start: 0, end: 0, extra: 1 } as never, sourceEventSeqs: [0] }),
    'event "user/message": invalid replace surfaceOp')
  })

  it('S-052 source lists: V6, V7 (but [] on assistant/message), V8, V9, V10', () => {
    const s = users(4)
    const send = (sources: unknown) => () => s.append('user/message', userMsg('x'),
      { surfaceOp: 'append', sourceEventSeqs: sources as number[] })
    unchanged(s, send('0'), 'sourceEventSeqs must be an array')
    unchanged(s, send([]), 'sourceEventSeqs must not be empty except on assistant/message')
    unchanged(s, send([0.5]), 'sourceEventSeqs must contain only non-negative safe integers')
    unchanged(s, send([0, 0]), 'sourceEventSeqs contains duplicate 0')
    unchanged(s, send([4]), 'sourceEventSeqs must reference earlier events: 4 >= 4')
    const empty = s.append('assistant/message', { turn: 1, step: 1, message: assistantMsg('a') },
      { surfaceOp: 'append', sourceEventSeqs: [] })
    expect(empty.sourceEventSeqs).toEqual([])
  })
})

describe('append and replace (V11–V14)', () => {
  it('S-053 an append-origin event may cite any earlier seqs, shadowed or not', () => {
    const s = users(2)
    s.append('turn/start', { turn: 1 })
    replaceUser(s, 'sum', 0, 0, [0])
    const event = s.append('user/message', userMsg('x'), { surfaceOp: 'append', sourceEventSeqs: [3, 0, 2, 1] })
    expect(event.sourceEventSeqs).toEqual([3, 0, 2, 1])
    expect(s.surface.nodes).toEqual([3, 1, 4])
  })

  it('S-054 a replace splices the range, inserts the candidate where it started and bumps the generation', () => {
    const a = users(3)
    replaceUser(a, 'sum', 0, 1, [0, 1])
    expect(a.surface).toEqual({ nodes: [3, 2], replaceGeneration: 1 })
    const b = users(3)
    replaceUser(b, 'sum', 1, 1, [1])
    expect(b.surface).toEqual({ nodes: [0, 3, 2], replaceGeneration: 1 })
  })

  it('S-055 shadowed nodes missing from the sources are V14, listed in surface order', () => {
    const s = users(3)
    unchanged(s, () => replaceUser(s, 'sum', 0, 1, [0]),
      'surface replace: sourceEventSeqs must include every shadowed node; missing 1')
    unchanged(s, () => replaceUser(s, 'sum', 0, 1),
      'surface replace: sourceEventSeqs must include every shadowed node; missing 0, 1')
    expect(s.surface.replaceGeneration).toBe(0)
  })

  it('S-056 a start or end that is not a current node is V11 / V12, shadowed seqs included', () => {
    const s = users(2)
    s.append('turn/start', { turn: 1 })
    unchanged(s, () => replaceUser(s, 'x', 2, 1, [1, 2]), 'surface replace: start seq 2 is not a current surface node')
    unchanged(s, () => replaceUser(s, 'x', 0, 2, [0, 1, 2]), 'surface replace: end seq 2 is not a current surface node')
    replaceUser(s, 'sum', 0, 0, [0])
    unchanged(s, () => replaceUser(s, 'x', 0, 1, [0, 1]), 'surface replace: start seq 0 is not a current surface node')
    unchanged(s, () => replaceUser(s, 'x', 1, 0, [0, 1]), 'surface replace: end seq 0 is not a current surface node')
  })

  it('S-057 the range is positional: out-of-order seqs work, a start after the end is V13', () => {
    const s = users(2)
    replaceUser(s, 'a', 0, 0, [0])
    expect(s.surface.nodes).toEqual([2, 1])
    unchanged(s, () => replaceUser(s, 'b', 1, 2, [1, 2]),
      'surface replace: start seq 1 (position 1) is after end seq 2 (position 0)')
    replaceUser(s, 'b', 2, 1, [1, 2])
    expect(s.surface).toEqual({ nodes: [3], replaceGeneration: 2 })
  })
})

describe('system head and tool-result rewrites (V15–V21)', () => {
  function headed(): Session {
    const s = fresh()
    appendSystem(s, 'sys')
    appendUser(s, 'u1')
    appendUser(s, 'u2')
    return s
  }

  it('S-058 only a one-node system/message may replace the system head', () => {
    const s = headed()
    unchanged(s, () => replaceUser(s, 'x', 0, 1, [0, 1]),
      'surface replace: range covers the system head (seq 0); only a system/message may replace it')
    unchanged(s, () => s.append('system/message', systemMsg('s2'), { surfaceOp: replace(0, 1), sourceEventSeqs: [0, 1] }),
      'system/message replacement must rewrite exactly one node; range covers 2')
    s.append('system/message', systemMsg('s2', 'new prompt'), { surfaceOp: replace(0, 0), sourceEventSeqs: [0] })
    expect(s.surface).toEqual({ nodes: [3, 1, 2], replaceGeneration: 1 })
  })

  it('S-059 a system/message replace must target a system/message (V17)', () => {
    const s = headed()
    unchanged(s, () => s.append('system/message', systemMsg('s2'), { surfaceOp: replace(1, 1), sourceEventSeqs: [1] }),
      'system/message replacement must target a system/message; seq 1 is "user/message"')
  })

  it('S-060 user ranges without a system head, and mid-surface system appends, are accepted', () => {
    const s = users(3)
    replaceUser(s, 'sum', 0, 2, [0, 1, 2])
    expect(s.surface.nodes).toEqual([3])
    appendSystem(s, 'late')
    expect(s.surface.nodes).toEqual([3, 4])
  })

  const base = { turn: 1, step: 1, message: resultMsg('r1', 'c', 'long output'), meta: { a: 1 } }
  function withResult(): Session {
    const s = fresh()
    appendUser(s, 'u0')
    s.append('tool/result', base, { surfaceOp: 'append' })
    return s
  }
  const rewrite = (s: Session, data: unknown, start = 1, end = start, sources = [start, end]) =>
    () => s.append('tool/result', data as never, { surfaceOp: replace(start, end), sourceEventSeqs: [...new Set(sources)] })
  const withMessage = (patch: (m: ToolResultMessage) => unknown) => ({ ...base, message: patch(resultMsg('r2', 'c', 'short')) })

  it('S-061 a tool/result replace must rewrite exactly one tool/result node (V18, V19)', () => {
    const s = withResult()
    unchanged(s, rewrite(s, withMessage(m => m), 0, 1, [0, 1]), 'tool/result replacement must rewrite exactly one node; range covers 2')
    unchanged(s, rewrite(s, withMessage(m => m), 0), 'tool/result replacement must target a tool/result; seq 0 is "user/message"')
  })

  it('S-062 a tool/result rewrite needs a new id and may change only the inner content (V20, V21)', () => {
    const s = withResult()
    unchanged(s, rewrite(s, { ...base, message: resultMsg('r1', 'c', 'short') }), 'tool/result replacement must use a new message id')
    const changed = [
      withMessage(m => ({ ...m, content: [{ ...m.content[0], isError: true }] })),
      { ...withMessage(m => m), meta: { a: 2 } },
      { ...withMessage(m => m), error: { name: 'E', code: 'X' } },
      { ...withMessage(m => m), turn: 2 },
      { ...base, message: resultMsg('r2', 'd', 'short') },
    ]
    for (const data of changed) {
      unchanged(s, rewrite(s, data), 'tool/result replacement may change only the result content and message id')
    }
    const event = rewrite(s, withMessage(m => m))() as SessionEvent
    expect(s.surface).toEqual({ nodes: [0, event.seq], replaceGeneration: 1 })
    expect(s.deriveMessages()[1]).toEqual(resultMsg('r2', 'c', 'short'))
  })
})

describe('origins, classes and the surface view', () => {
  it('S-063 a summary shadows a mixed range; the originals stay append-origin in the log', () => {
    const s = fresh()
    appendUser(s, 'u0')
    s.append('assistant/message', { turn: 1, step: 1, message: assistantMsg('a1', 'x', ['c']) }, { surfaceOp: 'append' })
    s.append('tool/result', { turn: 1, step: 1, message: resultMsg('r1', 'c') }, { surfaceOp: 'append' })
    const summary = replaceUser(s, 'sum', 0, 2, [0, 1, 2])
    expect(s.surface.nodes).toEqual([3])
    expect(s.events.slice(0, 3).map(isAppendSurfaceEvent)).toEqual([true, true, true])
    expect([isReplacementSurfaceEvent(summary), isAppendSurfaceEvent(summary), isSurfaceEvent(summary)]).toEqual([true, false, true])
    expect(s.events.slice(0, 3).map(isReplacementSurfaceEvent)).toEqual([false, false, false])
  })

  it('S-064 non-surface events never become nodes; an empty assistant message is a node that derives nothing', () => {
    const s = fresh()
    s.append('turn/start', { turn: 1 })
    appendAs(s, 'plugin/x', {})
    const empty = s.append('assistant/message', { turn: 1, step: 1, message: assistantMsg('a', '') }, { surfaceOp: 'append' })
    expect(s.surface.nodes).toEqual([2])
    expect(s.deriveMessages()).toEqual([])
    expect([isSurfaceEvent(s.events[0]!), isSurfaceEvent(empty)]).toEqual([false, true])
  })

  it('S-065 a candidate vetoed after surface validation leaves the surface unchanged', async () => {
    const { store, s } = await published()
    appendUser(s, 'u0')
    appendUser(s, 'u1')
    const before = s.surface
    const veto = new Error('veto')
    const dispose = store.addCheck(() => { throw veto })
    expect(thrown(() => replaceUser(s, 'sum', 0, 1, [0, 1]))).toBe(veto)
    expect(thrown(() => appendUser(s, 'u2'))).toBe(veto)
    expect(s.surface).toBe(before)
    expect(s.surface).toEqual({ nodes: [0, 1], replaceGeneration: 0 })
    dispose()
    replaceUser(s, 'sum', 0, 1, [0, 1])
    expect(s.surface).toEqual({ nodes: [2], replaceGeneration: 1 })
  })

  it('S-066 foldSurface matches the live surface, returns fresh arrays and prefixes its errors', () => {
    const s = users(3)
    replaceUser(s, 'sum', 1, 2, [1, 2])
    appendUser(s, 'u4')
    const folded = foldSurface(s.events)
    expect(folded).toEqual({
      nodes: [...s.surface.nodes], replaceGeneration: 1,
      replacements: [{ seq: 3, start: 1, end: 2, shadowedSeqs: [1, 2] }],
    })
    folded.nodes.push(99)
    folded.replacements[0]!.shadowedSeqs.length = 0
    expect(s.surface.nodes).toEqual([0, 3, 4])
    expect(foldSurface(s.events).replacements[0]!.shadowedSeqs).toEqual([1, 2])
    const bad = [...s.events.slice(0, 4), ev('user/message', 4, userMsg('x'), { surfaceOp: replace(1, 1), sourceEventSeqs: [1] })]
    expectError(() => foldSurface(bad), SURFACE, 'event at seq 4: surface replace: start seq 1 is not a current surface node')
    expectError(() => foldSurface([ev('user/message', 0, userMsg('x'))]), SURFACE,
      'event at seq 0: event "user/message" is a surface type and requires surfaceOp')
  })

  it('S-145 foldSurface refuses a log that is not contiguous from seq 0 (a gap, a repeat, a late start)', () => {
    const s = users(3)
    const [e0, e1, e2] = s.events
    expectError(() => foldSurface([e0!, e2!]), SURFACE, 'event at index 1 has seq 2; foldSurface needs a log contiguous from seq 0')
    expectError(() => foldSurface([e0!, e1!, e1!]), SURFACE, 'event at index 2 has seq 1; foldSurface needs a log contiguous from seq 0')
    expectError(() => foldSurface([e1!, e2!]), SURFACE, 'event at index 0 has seq 1; foldSurface needs a log contiguous from seq 0')
    expect(foldSurface([e0!, e1!, e2!]).nodes).toEqual([0, 1, 2])
  })

  it('S-067 surface.nodes is frozen and changes identity only when the surface changes', () => {
    const s = users(1)
    const first = s.surface
    expect(Object.isFrozen(first.nodes)).toBe(true)
    expect(() => { (first.nodes as number[]).push(1) }).toThrow(TypeError)
    appendAs(s, 'plugin/x', {})
    s.append('turn/start', { turn: 1 })
    expect(s.surface.nodes).toBe(first.nodes)
    appendUser(s, 'u1')
    expect(s.surface.nodes).not.toBe(first.nodes)
    expect(first.nodes).toEqual([0])
    expect(s.surface.nodes).toEqual([0, 3])
  })
})
