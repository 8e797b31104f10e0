import { CallId, type Session, type SessionEvent } from '@logbook/session'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { appendTitle, foldProjection, statsProjection, type StatsView, titleProjection } from '../src/index.ts'
import { appendAs, assistantMsg, makeApp, resultMsg, sid, userMsg } from './helpers.ts'

function at(time: number): void {
  vi.setSystemTime(time)
}

/** One step of turn `t`: step/start at `start`, the assistant message at `answer`, then calls and results. */
function step(s: Session, t: number, n: number, times: { start: number; answer: number; end: number }, opts: {
  usage?: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; reasoningTokens?: number }
  calls?: { id: string; at: number; resultAt: number; isError?: boolean }[]
} = {}): void {
  at(times.start)
  s.append('step/start', { turn: t, step: n })
  at(times.answer)
  const calls = opts.calls ?? []
  s.append('assistant/message', {
    turn: t, step: n, message: assistantMsg(`a${t}.${n}`, calls.map(c => c.id)), ...(opts.usage ? { usage: opts.usage } : {}),
  }, { surfaceOp: 'append' })
  for (const c of calls) {
    at(c.at)
    s.append('tool/call', { turn: t, step: n, callId: CallId(c.id), name: 'read', arguments: '{}' })
  }
  for (const c of [...calls].sort((x, y) => x.resultAt - y.resultAt)) {
    at(c.resultAt)
    s.append('tool/result', { turn: t, step: n, message: resultMsg(`r${c.id}`, c.id, c.isError) }, { surfaceOp: 'append' })
  }
  at(times.end)
  s.append('step/end', { turn: t, step: n })
}

describe('built-in units (03 §1.5)', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('L-026 [ft] stats of a scripted two-turn session (3 calls, 1 failing, fixed usage and times) is exact; a backwards clock adds 0', async () => {
    vi.useFakeTimers()
    at(1_000)
    const { app } = await makeApp()
    app.sessions.registerEventType('compaction/end')
    const s = app.sessions.create(sid('s'))
    s.append('turn/start', { turn: 1 })
    s.append('user/message', userMsg('u1', 'hello'), { surfaceOp: 'append' })
    step(s, 1, 1, { start: 1_100, answer: 1_400, end: 2_100 }, {
      usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 5, reasoningTokens: 7 },
      calls: [{ id: 'c1', at: 1_500, resultAt: 1_800 }, { id: 'c2', at: 1_500, resultAt: 2_100, isError: true }],
    })
    step(s, 1, 2, { start: 2_200, answer: 2_600, end: 2_600 }, { usage: { inputTokens: 150, outputTokens: 30 } })
    at(2_700)
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    at(5_000)
    s.append('turn/start', { turn: 2 })
    s.append('user/message', userMsg('u2', 'again'), { surfaceOp: 'append' })
    step(s, 2, 1, { start: 5_000, answer: 5_250, end: 5_900 }, {
      usage: { inputTokens: 10, outputTokens: 2, reasoningTokens: 1 }, calls: [{ id: 'c3', at: 5_300, resultAt: 5_900 }],
    })
    step(s, 2, 2, { start: 6_000, answer: 6_100, end: 6_100 })
    at(6_500)
    s.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
    appendAs(s, 'compaction/end', { compactionId: 'k1', turn: null })
    appendAs(s, 'compaction/end', { compactionId: 'k2', turn: null, error: { code: 'SUMMARY_FAILED', message: 'x' } })
    const expected: StatsView = {
      turns: 2, steps: 4, toolCalls: 3, toolErrors: 1, inputTokens: 260, outputTokens: 52, cacheReadTokens: 5,
      reasoningTokens: 8, compactions: 1, turnMs: 3_200, modelMs: 1_050, toolMs: 1_500,
    }
    expect(app.sessionProjections.snapshot(s).values.stats).toEqual(expected)
    // The clock goes back: appends keep times monotonic, so the third turn adds 0 ms.
    at(3_000)
    s.append('turn/start', { turn: 3 })
    at(2_000)
    s.append('turn/end', { turn: 3, reason: { kind: 'completed' } })
    expect(app.sessionProjections.snapshot(s).values.stats).toEqual({ ...expected, turns: 3 })
    // A stored log whose times run backwards (another host's clock) adds 0 too.
    const backwards = [
      { type: 'turn/start', seq: 0, time: 9_000, data: { turn: 1 } },
      { type: 'step/start', seq: 1, time: 9_000, data: { turn: 1, step: 1 } },
      { type: 'assistant/message', seq: 2, time: 8_000, data: { turn: 1, step: 1, message: assistantMsg('a', ['c']) }, surfaceOp: 'append' },
      { type: 'tool/call', seq: 3, time: 8_000, data: { turn: 1, step: 1, callId: 'c', name: 'read', arguments: '{}' } },
      { type: 'tool/result', seq: 4, time: 7_000, data: { turn: 1, step: 1, message: resultMsg('r', 'c') }, surfaceOp: 'append' },
      { type: 'step/end', seq: 5, time: 7_000, data: { turn: 1, step: 1 } },
      { type: 'turn/end', seq: 6, time: 6_000, data: { turn: 1, reason: { kind: 'completed' } } },
    ] as unknown as SessionEvent[]
    expect(foldProjection(statsProjection, backwards).totals).toMatchObject({ turns: 1, steps: 1, toolCalls: 1, turnMs: 0, modelMs: 0, toolMs: 0 })
  })

  it('stats returns each new state frozen whole (state, totals, open calls), so storing it walks nothing', () => {
    const log = [
      { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } },
      { type: 'step/start', seq: 1, time: 2, data: { turn: 1, step: 1 } },
      { type: 'tool/call', seq: 2, time: 3, data: { turn: 1, step: 1, callId: 'c', name: 'read', arguments: '{}' } },
      { type: 'tool/result', seq: 3, time: 4, data: { turn: 1, step: 1, message: resultMsg('r', 'c') }, surfaceOp: 'append' },
    ] as unknown as SessionEvent[]
    let state = statsProjection.init()
    for (const event of log) {
      const next = statsProjection.apply(state, event)
      expect(next).not.toBe(state)
      expect([next, next.totals, next.callsAt].every(part => Object.isFrozen(part))).toBe(true)
      state = next
    }
    expect(state.callsAt).toEqual({})
    expect(state.totals).toMatchObject({ turns: 1, steps: 1, toolCalls: 1, toolMs: 1 })
  })

  it('L-027 two todo/write events → the second list; a later turn/start keeps it', async () => {
    const { app } = await makeApp()
    const s = app.sessions.create(sid('s'))
    expect(app.sessionProjections.snapshot(s).values.todos).toBeNull()
    s.append('turn/start', { turn: 1 })
    s.append('todo/write', { todos: [{ content: 'a', status: 'pending' }] })
    const second = [{ content: 'a', status: 'completed' as const }, { content: 'b', status: 'in_progress' as const }]
    s.append('todo/write', { todos: second })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const state = app.sessionProjections.stateOf(s, 'todos')
    expect(app.sessionProjections.snapshot(s).values.todos).toEqual(second)
    s.append('turn/start', { turn: 2 })
    expect(app.sessionProjections.stateOf(s, 'todos')).toBe(state)
    expect(app.sessionProjections.snapshot(s).values.todos).toEqual(second)
  })

  it('L-028 title: the first prompt collapsed, long prompts clipped to 59 code points + "…", appendTitle wins, a blank one falls back', async () => {
    const { app } = await makeApp()
    const p = app.sessionProjections
    const s = app.sessions.create(sid('s'))
    expect(p.snapshot(s).values.title).toBeNull()
    s.append('user/message', userMsg('p', 'from a plugin', 'plugin'), { surfaceOp: 'append' })
    s.append('user/message', userMsg('b', ' \n '), { surfaceOp: 'append' })
    expect(p.snapshot(s).values.title).toBeNull()
    s.append('user/message', userMsg('u1', '  Plan   the\nrelease '), { surfaceOp: 'append' })
    s.append('user/message', userMsg('u2', 'second prompt'), { surfaceOp: 'append' })
    expect(p.snapshot(s).values.title).toBe('Plan the release')
    const event = appendTitle(s, 'X')
    expect(event).toMatchObject({ type: 'session/title', data: { title: 'X' }, ignorable: true })
    expect(p.snapshot(s).values.title).toBe('X')
    appendTitle(s, '  Y  ')
    expect(p.snapshot(s).values.title).toBe('Y')
    appendTitle(s, ' ')
    expect(p.snapshot(s).values.title).toBe('Plan the release')
    expect(p.stateOf(s, 'title')).toEqual({ explicit: null, fallback: 'Plan the release' })

    const long = app.sessions.create(sid('long'))
    const text = `${'é'.repeat(50)}${'😀'.repeat(30)}`
    long.append('user/message', userMsg('u', text), { surfaceOp: 'append' })
    const title = p.snapshot(long).values.title as string
    expect(Array.from(title)).toHaveLength(60)
    expect(title).toBe(`${'é'.repeat(50)}${'😀'.repeat(9)}…`)
    const exact = app.sessions.create(sid('exact'))
    exact.append('user/message', userMsg('u', ['a'.repeat(30), 'b'.repeat(29)]), { surfaceOp: 'append' })
    expect(p.snapshot(exact).values.title).toBe(`${'a'.repeat(30)} ${'b'.repeat(29)}`)
  })

  it('session/title is registered with the store; appendTitle refuses a non-string title', async () => {
    const { app } = await makeApp()
    expect(app.sessions.isKnownEventType('session/title')).toBe(true)
    const s = app.sessions.create(sid('s'))
    expect(() => appendTitle(s, 3 as unknown as string)).toThrow(new TypeError('title must be a string, got 3'))
    expect(s.seq).toBe(0)
    expect(foldProjection(titleProjection, [{ type: 'session/title', seq: 0, time: 0, data: { title: 7 } } as unknown as SessionEvent]))
      .toEqual({ explicit: null, fallback: null })
  })

  it('config: builtins can be switched off one by one', async () => {
    const { app } = await makeApp({ builtins: { stats: false, title: false } })
    const s = app.sessions.create(sid('s'))
    expect(app.sessionProjections.snapshot(s).values).toEqual({ todos: null })
    expect(() => app.sessionProjections.register(titleProjection)).not.toThrow()
  })
})
