import { Context } from '@deepseek-ai/cordis'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import SessionStore, {
  foldSurface, forkSeed, openTurnClosers, Session, SessionError, SessionForkError, SessionId, type SessionEvent,
} from '../src/index.ts'
import * as invariant from '../src/invariant.ts'
import { APPEND, appendAs, fromScratch, plainAssistant, plainUser, spyArrayCopies, thrown } from './harness.ts'

const G = 'If you retry, retry only if the operation is read-only or idempotent; if it may have side effects, first '
  + 'verify external state or ask the user. Do not retry blindly.'
const FORKED_NOT_STARTED = 'The history inherited by this branch has no record of this tool call starting. The parent '
  + `session may have executed it after the fork point. ${G}`
const FORKED_STARTED = 'The history inherited by this branch records this tool call starting but not its result. The '
  + `parent session may have completed it after the fork point, so its outcome is unknown here. ${G}`

const resultData = (turn: number, step: number, id: string, callId: string, text = 'done') => ({
  turn, step,
  message: { id, role: 'user', source: { kind: 'tool', callId }, content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }] }] },
})

/** A closed turn of six events: turn/start, user, step/start, assistant, step/end, turn/end. */
function closedTurn(s: Session, turn: number): void {
  appendAs(s, 'turn/start', { turn })
  appendAs(s, 'user/message', plainUser(`u${turn}`), APPEND)
  appendAs(s, 'step/start', { turn, step: 1 })
  appendAs(s, 'assistant/message', { turn, step: 1, message: plainAssistant(`a${turn}`) }, APPEND)
  appendAs(s, 'step/end', { turn, step: 1 })
  appendAs(s, 'turn/end', { turn, reason: { kind: 'completed' } })
}

/** 0 turn/start, 1 user, 2 step/start, 3 assistant(call c), 4 tool/call c, 5 tool/result c, 6 step/end, 7 turn/end. */
function turnWithCall(s: Session): void {
  appendAs(s, 'turn/start', { turn: 1 })
  appendAs(s, 'user/message', plainUser('u1'), APPEND)
  appendAs(s, 'step/start', { turn: 1, step: 1 })
  appendAs(s, 'assistant/message', { turn: 1, step: 1, message: plainAssistant('a1', ['c']) }, APPEND)
  appendAs(s, 'tool/call', { turn: 1, step: 1, callId: 'c', name: 'read', arguments: '{}' })
  appendAs(s, 'tool/result', resultData(1, 1, 'r1', 'c'), { surfaceOp: 'append', sourceEventSeqs: [4] })
  appendAs(s, 'step/end', { turn: 1, step: 1 })
  appendAs(s, 'turn/end', { turn: 1, reason: { kind: 'completed' } })
}

function expectError(fn: () => unknown, cls: typeof SessionError, code: string, message: string): void {
  const error = thrown(fn) as SessionError
  expect(error).toBeInstanceOf(cls)
  expect(error.name).toBe(cls.name)
  expect({ code: error.code, message: error.message }).toEqual({ code, message })
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  if (!Object.isFrozen(value)) return false
  return Object.values(value).every(isDeepFrozen)
}

let clock = 0
let app: Context
let store: SessionStore

beforeEach(async () => {
  clock = 1_000
  vi.spyOn(Date, 'now').mockImplementation(() => (clock += 10))
  app = new Context()
  await app.plugin(SessionStore)
  store = app.sessions
})

afterEach(() => {
  vi.restoreAllMocks()
})

const P = SessionId('P')

describe('live fork', () => {
  it('S-108 fork of a closed session copies the prefix, adds the inherited marker and leaves the parent untouched', () => {
    const parent = store.create(P)
    closedTurn(parent, 1)
    const view = parent.events
    const nodes = parent.surface.nodes
    const created: Session[] = []
    app.on('session/created', session => void created.push(session))

    const child = store.fork(parent)

    expect(child.events.length).toBe(7)
    for (let i = 0; i < 6; i++) expect(child.events[i]).toBe(parent.events[i])
    expect(child.events[6]).toEqual({ type: 'session/end-seed', seq: 6, time: parent.events[5]!.time, data: { inherited: true } })
    expect(child.header).toEqual({ version: 2, id: child.id, createdAt: expect.any(Number), parentSession: 'P', isSeeded: true, seedLength: 6 })
    expect(Object.keys(child.header)).toEqual(['version', 'id', 'createdAt', 'parentSession', 'isSeeded', 'seedLength'])
    expect(child.inheritedEventCount).toBe(6)
    expect(child.firstLiveSeq).toBe(7)
    expect(store.get(child.id)).toBe(child)
    expect(created).toEqual([child])

    expect(parent.events).toBe(view)
    expect(parent.seq).toBe(6)
    expect(parent.surface.nodes).toBe(nodes)

    const seeded = forkSeed(parent.header, parent.events)
    expect(seeded.seed).toEqual([...child.events])
    expect(seeded.seed[0]).toBe(parent.events[0])
    expect(seeded.inheritedEventCount).toBe(6)
    expect(seeded.meta).toEqual({ parentSession: 'P', isSeeded: true, seedLength: 6 })
  })

  it('S-109 the child copies cwd, origin, delegationDepth and agentPreset unchanged', () => {
    const meta = { cwd: '/srv/app', parentSession: SessionId('root'), origin: 'subagent', delegationDepth: 2, agentPreset: 'reviewer' } as const
    const parent = store.create(P, { meta })
    closedTurn(parent, 1)
    const child = store.fork(parent, 5, SessionId('C'))
    expect(child.header).toEqual({
      version: 2, id: 'C', createdAt: expect.any(Number), cwd: '/srv/app', parentSession: 'P', isSeeded: true,
      seedLength: 6, origin: 'subagent', delegationDepth: 2, agentPreset: 'reviewer',
    })
    expect(Object.keys(child.header)).toEqual(['version', 'id', 'createdAt', 'cwd', 'parentSession', 'isSeeded',
      'seedLength', 'origin', 'delegationDepth', 'agentPreset'])
    expect(forkSeed(parent.header, parent.events, 5).meta).toEqual({
      cwd: '/srv/app', parentSession: 'P', isSeeded: true, seedLength: 6, origin: 'subagent', delegationDepth: 2, agentPreset: 'reviewer',
    })
  })

  it('S-110 a cut between a requested call and its tool/call closes it as not started', () => {
    const parent = store.create(P)
    turnWithCall(parent)
    const b = 3
    const t = parent.events[b]!.time
    const child = store.fork(parent, b, SessionId('C'))
    expect(child.events.slice(b + 1)).toEqual([
      { type: 'session/end-seed', seq: 4, time: t, data: { inherited: true } },
      {
        type: 'tool/result', seq: 5, time: t, surfaceOp: 'append',
        data: {
          turn: 1, step: 1, error: { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' },
          message: {
            id: 'forked-tool-result-c-5', role: 'user', source: { kind: 'tool', callId: 'c' },
            content: [{ type: 'tool-result', toolCallId: 'c', isError: true, content: [{ type: 'text', text: FORKED_NOT_STARTED }] }],
          },
        },
      },
      { type: 'step/end', seq: 6, time: t, data: { turn: 1, step: 1 } },
      { type: 'turn/end', seq: 7, time: t, data: { turn: 1, reason: { kind: 'forked' } } },
    ])
    expect('sourceEventSeqs' in child.events[5]!).toBe(false)
    expect(child.events.map(e => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(child.inheritedEventCount).toBe(4)
    expect(child.firstLiveSeq).toBe(8)
    expect(child.surface.nodes).toEqual([1, 3, 5])
  })

  it('S-111 a cut after tool/call gives an outcome-unknown result citing the call', () => {
    const parent = store.create(P)
    turnWithCall(parent)
    const child = store.fork(parent, 4, SessionId('C'))
    const result = child.events[6] as SessionEvent<'tool/result'>
    expect(result.type).toBe('tool/result')
    expect(result.sourceEventSeqs).toEqual([4])
    expect(result.data.error).toEqual({ name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' })
    expect(result.data.message.id).toBe('forked-tool-result-c-6')
    expect(result.data.message.content[0].content).toEqual([{ type: 'text', text: FORKED_STARTED }])
    expect(child.events.slice(7).map(e => e.type)).toEqual(['step/end', 'turn/end'])
  })

  it('S-112 a cut at a turn/start is closed by turn/end {kind: forked} alone', () => {
    const parent = store.create(P)
    closedTurn(parent, 1)
    closedTurn(parent, 2)
    const child = store.fork(parent, 6, SessionId('C'))
    const t = parent.events[6]!.time
    expect(child.events.slice(7)).toEqual([
      { type: 'session/end-seed', seq: 7, time: t, data: { inherited: true } },
      { type: 'turn/end', seq: 8, time: t, data: { turn: 2, reason: { kind: 'forked' } } },
    ])
  })

  it('S-113 an empty parent forks to a lone marker; a boundary on it is refused', () => {
    const parent = store.create(P)
    vi.mocked(Date.now).mockReturnValue(5_000)
    const child = store.fork(parent, undefined, SessionId('C'))
    expect(child.events).toHaveLength(1)
    expect(child.events[0]!.seq).toBe(0)
    expect(child.events[0]).toEqual({ type: 'session/end-seed', seq: 0, time: 5_000, data: { inherited: true } })
    expect(child.inheritedEventCount).toBe(0)
    expect(child.firstLiveSeq).toBe(1)
    expect(child.header).toMatchObject({ isSeeded: true, seedLength: 0, parentSession: 'P' })

    expectError(() => store.fork(parent, 0, SessionId('D')), SessionForkError, 'INVALID_BOUNDARY', 'session "P" has no events')
    expect(store.get(SessionId('D'))).toBeUndefined()
  })

  it('S-114 boundaries that are not a seq of the parent are refused with their §7 message', () => {
    const parent = store.create(P)
    closedTurn(parent, 1)
    const before = store.list()
    const bad: [number, string][] = [
      [-1, 'fork boundary must be a non-negative safe integer, got -1'],
      [0.5, 'fork boundary must be a non-negative safe integer, got 0.5'],
      [2 ** 53, 'fork boundary must be a non-negative safe integer, got 9007199254740992'],
      [6, 'fork boundary 6 is beyond the last seq 5 of session "P"'],
    ]
    for (const [b, message] of bad) expectError(() => store.fork(parent, b, SessionId('C')), SessionForkError, 'INVALID_BOUNDARY', message)
    expect(store.list()).toEqual(before)
    expect(parent.seq).toBe(6)
  })

  it('S-114 forkSeed refuses a boundary whose event does not carry that seq', () => {
    const events = [{ type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } }, { type: 'turn/end', seq: 2, time: 1, data: { turn: 1, reason: { kind: 'completed' } } }] as SessionEvent[]
    const header = { version: 1, id: P, createdAt: 0 }
    expectError(() => forkSeed(header, events, 1), SessionForkError, 'INVALID_BOUNDARY', 'fork boundary 1 does not match a contiguous seq in session "P"')
    expectError(() => forkSeed(header, [], 3), SessionForkError, 'INVALID_BOUNDARY', 'session "P" has no events')
  })

  it('S-115 a source that is not live is not found; another object with a live id is not live', () => {
    const parent = store.create(P)
    closedTurn(parent, 1)
    expectError(() => store.fork(SessionId('nope')), SessionForkError, 'SESSION_NOT_FOUND', 'session "nope" not found')
    const detached = Session.create(SessionId('d'))
    expectError(() => store.fork(detached), SessionForkError, 'SESSION_NOT_FOUND', 'session "d" not found')
    const impostor = Session.create(P)
    expectError(() => store.fork(impostor), SessionForkError, 'SESSION_NOT_LIVE', 'session "P" is not the live store instance')
    expect(store.fork(P, 5, SessionId('byId')).events[0]).toBe(parent.events[0])
  })

  it('S-116 the child id is checked first, then the source, then the boundary', () => {
    const parent = store.create(P)
    closedTurn(parent, 1)
    store.create(SessionId('C'))
    expectError(() => store.fork(SessionId('nope'), -1, SessionId('C')), SessionForkError, 'SESSION_ALREADY_EXISTS', 'session "C" already exists')
    expectError(() => store.fork(SessionId('nope'), -1, SessionId('a/b')), SessionError, 'INVALID_SESSION_ID', 'invalid session id "a/b"')
    expect(thrown(() => store.fork(SessionId('nope'), -1, SessionId('a/b')))).not.toBeInstanceOf(SessionForkError)
    expectError(() => store.fork(SessionId('nope'), -1, SessionId('D')), SessionForkError, 'SESSION_NOT_FOUND', 'session "nope" not found')
    expect(store.list().map(s => s.id)).toEqual(['P', 'C'])
  })

  it('S-115 S-114 exotic sources, boundaries and child ids get their §7 codes, never a TypeError', () => {
    const parent = store.create(P)
    closedTurn(parent, 1)
    const exotic = Object.create(null) as never
    expectError(() => store.fork(exotic), SessionForkError, 'SESSION_NOT_FOUND', 'session "[object Object]" not found')
    expectError(() => store.fork({ id: Object.create(null) } as never), SessionForkError, 'SESSION_NOT_FOUND',
      'session "[object Object]" not found')
    expectError(() => store.fork(null as never), SessionForkError, 'SESSION_NOT_FOUND', 'session "null" not found')
    expectError(() => store.fork(undefined as never), SessionForkError, 'SESSION_NOT_FOUND', 'session "undefined" not found')
    const badBoundary = 'fork boundary must be a non-negative safe integer, got '
    expectError(() => store.fork(parent, exotic), SessionForkError, 'INVALID_BOUNDARY', `${badBoundary}[object Object]`)
    expectError(() => store.fork(parent, Symbol('b') as never), SessionForkError, 'INVALID_BOUNDARY', `${badBoundary}Symbol(b)`)
    expectError(() => store.fork(parent, 1n as never), SessionForkError, 'INVALID_BOUNDARY', `${badBoundary}1`)
    expectError(() => store.fork(parent, null as never), SessionForkError, 'INVALID_BOUNDARY', `${badBoundary}null`)
    expectError(() => forkSeed(parent.header, parent.events, exotic), SessionForkError, 'INVALID_BOUNDARY', `${badBoundary}[object Object]`)
    expectError(() => store.fork(parent, 0, exotic), SessionError, 'INVALID_SESSION_ID', 'invalid session id "[object Object]"')
    expect(store.list()).toEqual([parent])
  })

  it('runs the known-type lookup over the shared prefix: a type unregistered since is refused at its first index', () => {
    const unregister = store.registerEventType('plugin/t')
    const parent = store.create(P)
    appendAs(parent, 'plugin/u', {}, { ignorable: true })
    appendAs(parent, 'plugin/t', {}, { ignorable: true })
    appendAs(parent, 'plugin/t', { n: 1 })
    appendAs(parent, 'plugin/t', { n: 2 })
    unregister()
    expect(store.fork(parent, 1, SessionId('early')).seq).toBe(3)
    const error = thrown(() => store.fork(parent, 3, SessionId('late'))) as SessionError
    expect({ code: error.code, message: error.message, index: error.index }).toEqual({
      code: 'UNKNOWN_EVENT_TYPE', index: 2,
      message: 'seed event at index 2: event type "plugin/t" is not registered with the session store; register it or mark the event ignorable',
    })
    expect(store.get(SessionId('late'))).toBeUndefined()
  })

  it('a log without turns forks with no closers; a cut mid-turn far from its start closes that turn', () => {
    const parent = store.create(P)
    store.registerEventType('plugin/x')
    for (let i = 0; i < 50; i++) appendAs(parent, 'plugin/x', { i })
    expect(store.fork(parent, 49).events.slice(50).map(e => e.type)).toEqual(['session/end-seed'])
    appendAs(parent, 'turn/start', { turn: 1 })
    for (let i = 0; i < 50; i++) appendAs(parent, 'plugin/x', { i })
    const child = store.fork(parent)
    expect(child.events.slice(101).map(e => [e.seq, e.type])).toEqual([[101, 'session/end-seed'], [102, 'turn/end']])
  })

  it('does no per-event work on the prefix: one slice of the log, one type lookup per distinct type', () => {
    const parent = store.create(P)
    store.registerEventType('plugin/x')
    for (let turn = 1; turn <= 40; turn++) {
      closedTurn(parent, turn)
      for (let i = 0; i < 100; i++) appendAs(parent, 'plugin/x', { i })
    }
    const LONG = 1000
    // Copies are counted by the length of what they produce or read; a short slice of the long log is fine.
    const spy = spyArrayCopies(value => Array.isArray(value) && value.length >= LONG, 'result')
    const lookups = vi.spyOn(store.hub, 'isKnownEventType')
    let child: Session
    try {
      child = store.fork(parent, 3000)
    } finally {
      spy.restore()
    }
    expect(spy.counts).toEqual({ slice: 1, concat: 0, iterator: 0, from: 0 })
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(8)
    expect(child.events.length).toBe(3002)
    expect(child.events[3000]).toBe(parent.events[3000])
  })

  it('S-117 with the companion loaded, a child cut inside an open step is created and accepts its next turn', async () => {
    await app.plugin(invariant)
    const parent = store.create(P)
    appendAs(parent, 'turn/start', { turn: 1 })
    appendAs(parent, 'user/message', plainUser('u1'), APPEND)
    appendAs(parent, 'step/start', { turn: 1, step: 1 })
    appendAs(parent, 'assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'ok' } })
    appendAs(parent, 'assistant/message', { turn: 1, step: 1, message: plainAssistant('a1', ['c1', 'c2']) }, { surfaceOp: 'append', sourceEventSeqs: [3] })
    appendAs(parent, 'tool/call', { turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '{}' })

    const child = store.fork(parent, 5, SessionId('C'))
    expect(child.events.slice(6).map(e => e.type)).toEqual(['session/end-seed', 'tool/result', 'tool/result', 'step/end', 'turn/end'])
    expect((child.events[7] as SessionEvent<'tool/result'>).data.error?.code).toBe('TOOL_OUTCOME_UNKNOWN')
    expect((child.events[8] as SessionEvent<'tool/result'>).data.error?.code).toBe('TOOL_NOT_STARTED')
    expect(appendAs(child, 'turn/start', { turn: 2 }).seq).toBe(11)
    // The companion is really watching the child.
    expect(thrown(() => appendAs(child, 'turn/start', { turn: 3 }))).toMatchObject({ code: 'SESSION_INVARIANT' })
  })

  it('S-118 a fork of a fork keeps both inherited markers', () => {
    const parent = store.create(P)
    closedTurn(parent, 1)
    const first = store.fork(parent, undefined, SessionId('C1'))
    closedTurn(first, 2)
    const second = store.fork(first, undefined, SessionId('C2'))
    const markers = second.events.filter(e => e.type === 'session/end-seed')
    expect(markers.map(e => [e.seq, e.data])).toEqual([[6, { inherited: true }], [13, { inherited: true }]])
    expect(second.events[6]).toBe(first.events[6])
    expect(second.inheritedEventCount).toBe(13)
    expect(second.header).toMatchObject({ parentSession: 'C1', isSeeded: true, seedLength: 13 })
  })

  it('S-118 a session/created listener that throws during a fork leaves no child', () => {
    const parent = store.create(P)
    closedTurn(parent, 1)
    const boom = new Error('boom')
    const disposed: string[] = []
    app.on('session/disposed', session => void disposed.push(session.id))
    const off = app.on('session/created', (session) => {
      if (session.id === 'C') throw boom
    })
    expect(thrown(() => store.fork(parent, 5, SessionId('C')))).toBe(boom)
    expect(store.get(SessionId('C'))).toBeUndefined()
    expect(store.list()).toEqual([parent])
    expect(disposed).toEqual(['C'])
    expect(parent.seq).toBe(6)
    off()
    expect(store.fork(parent, 5, SessionId('C')).id).toBe('C')
  })

  it('S-137 the child shares the frozen prefix objects and the two logs then evolve independently', () => {
    const parent = store.create(P)
    turnWithCall(parent)
    const b = 4
    const child = store.fork(parent, b, SessionId('C'))
    for (let i = 0; i <= b; i++) expect(child.events[i]).toBe(parent.events[i])
    expect(() => {
      (child.events[1] as { data: { id: string } }).data.id = 'x'
    }).toThrow(TypeError)
    for (const event of child.events.slice(b + 1)) expect(isDeepFrozen(event)).toBe(true)

    const parentMessages = parent.deriveMessages()
    const childMessages = child.deriveMessages()
    const childSeq = child.seq
    closedTurn(parent, 2)
    expect(child.seq).toBe(childSeq)
    expect(child.deriveMessages()).toEqual(childMessages)
    const parentView = parent.events
    closedTurn(child, 2)
    expect(parent.events).toBe(parentView)
    expect(parent.seq).toBe(14)
    expect(child.seq).toBe(childSeq + 6)
    expect(parent.deriveMessages().slice(0, parentMessages.length)).toEqual(parentMessages)
    expect(parent.events.slice(b + 1, 8).map(e => e.type)).toEqual(['tool/result', 'step/end', 'turn/end'])
  })

  it('S-137 a stored-source fork through create copies and validates every event', () => {
    const parent = store.create(P)
    turnWithCall(parent)
    const stored = JSON.parse(JSON.stringify(parent.events)) as SessionEvent[]
    const copy = store.create(SessionId('S'), forkSeed(parent.header, stored, 4))
    const live = store.fork(parent, 4, SessionId('L'))
    expect([...copy.events]).toEqual([...live.events])
    for (let i = 0; i < stored.length - 3; i++) expect(copy.events[i]).not.toBe(stored[i])
    expect(copy.inheritedEventCount).toBe(5)

    const broken = JSON.parse(JSON.stringify(parent.events)) as { data: Record<string, unknown> }[]
    delete broken[1]!.data['id']
    const error = thrown(() => store.create(SessionId('X'), forkSeed(parent.header, broken as unknown as SessionEvent[], 4))) as SessionError
    expect(error).toBeInstanceOf(SessionError)
    expect({ code: error.code, message: error.message, index: error.index })
      .toEqual({ code: 'INVALID_EVENT', message: 'seed event at index 1: event "user/message": data.id is required', index: 1 })
    expect(store.get(SessionId('X'))).toBeUndefined()
  })
})

describe('live fork surface and lifecycle', () => {
  it('closes the cut exactly as a scan of the whole prefix would, at every boundary', () => {
    const parent = store.create(P)
    appendAs(parent, 'step/start', { turn: 9, step: 9 }) // outside any turn: closers ignore it
    turnWithCall(parent)
    appendAs(parent, 'turn/start', { turn: 2 })
    appendAs(parent, 'step/start', { turn: 2, step: 1 })
    appendAs(parent, 'assistant/message', { turn: 2, step: 1, message: plainAssistant('a2', ['x', 'y']) }, APPEND)
    appendAs(parent, 'tool/call', { turn: 2, step: 1, callId: 'y', name: 'read', arguments: '{}' })
    appendAs(parent, 'step/end', { turn: 2, step: 1 })
    appendAs(parent, 'step/start', { turn: 2, step: 2 })
    appendAs(parent, 'assistant/message', { turn: 2, step: 2, message: plainAssistant('a3', ['z']) }, APPEND)
    const events = parent.events
    for (let b = 0; b < events.length; b++) {
      const { seed } = forkSeed(parent.header, events, b)
      const marker = seed[b + 1]!
      expect(seed.slice(b + 2)).toEqual(openTurnClosers([...events.slice(0, b + 1), marker], { kind: 'forked' }))
      expect(store.fork(parent, b).events.slice(b + 1)).toEqual(seed.slice(b + 1))
    }
  })

  it('takes the surface of the prefix from the parent when there was no replace', () => {
    const parent = store.create(P)
    turnWithCall(parent)
    closedTurn(parent, 2)
    for (const b of [0, 1, 3, 5, 9, 13]) {
      const child = store.fork(parent, b)
      expect([...child.surface.nodes]).toEqual(foldSurface(child.events).nodes)
      expect(child.surface.replaceGeneration).toBe(0)
      expect(child.deriveMessages()).toEqual(fromScratch(child.events))
    }
  })

  it('folds the prefix when the parent has replaced nodes', () => {
    const parent = store.create(P)
    turnWithCall(parent)
    // Summarise nodes 1..5 (user, assistant, result) into one user message at seq 8, then keep going.
    appendAs(parent, 'user/message', plainUser('summary'), { surfaceOp: { op: 'replace', start: 1, end: 5 }, sourceEventSeqs: [1, 3, 5] })
    closedTurn(parent, 2)
    expect(parent.surface.replaceGeneration).toBe(1)
    for (const b of [4, 8, 10, 14]) {
      const child = store.fork(parent, b)
      const folded = foldSurface(child.events)
      expect([...child.surface.nodes]).toEqual(folded.nodes)
      expect(child.surface.replaceGeneration).toBe(folded.replaceGeneration)
      expect(child.deriveMessages()).toEqual(fromScratch(child.events))
    }
  })

  it('binds the child to the caller fiber and publishes only its live appends', async () => {
    const parent = store.create(P)
    closedTurn(parent, 1)
    const seen: number[] = []
    app.on('session/event', (session, event) => {
      if (session.id === 'C') seen.push(event.seq)
    })
    let child: Session | undefined
    const fiber = app.plugin({ inject: ['sessions'], apply: (ctx: Context) => { child = ctx.sessions.fork(P, 5, SessionId('C')) } })
    await fiber
    expect(store.get(SessionId('C'))).toBe(child)
    appendAs(child!, 'turn/start', { turn: 2 })
    expect(seen).toEqual([7])
    await fiber.dispose()
    expect(store.get(SessionId('C'))).toBeUndefined()
    expect(store.get(P)).toBe(parent)
  })

  it('carries the latest request header and context of the prefix', () => {
    const parent = store.create(P)
    appendAs(parent, 'turn/start', { turn: 1 })
    appendAs(parent, 'request/header', { header: { config: { provider: 'p', model: 'm1' } }, reason: 'initial' })
    appendAs(parent, 'request/context', { provider: 'p', model: 'm1' })
    appendAs(parent, 'request/header', { header: { config: { provider: 'p', model: 'm2' } }, reason: 'change' })
    const child = store.fork(parent, 2)
    expect(child.requestHeader()).toEqual({ config: { provider: 'p', model: 'm1' } })
    expect(child.requestContext()).toEqual({ provider: 'p', model: 'm1' })
    expect(store.fork(parent).requestHeader()).toBe(parent.requestHeader())
  })
})
