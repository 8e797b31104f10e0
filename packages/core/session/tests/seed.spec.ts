import { describe, expect, it } from 'vitest'
import {
  assertSessionHeader, deepFreeze, Session, type SessionEvent, type SessionHeader, type SessionSeedEventState,
} from '../src/index.ts'
import { SurfaceState } from '../src/surface.ts'
import { appendAs, ev, expectError, makeApp, sid, userMsg } from './harness.ts'

const header = (id: string, extra: Record<string, unknown> = {}): SessionHeader =>
  ({ version: 1, id, createdAt: 5, ...extra }) as unknown as SessionHeader
const seededHeader = (id: string, seedLength: number): SessionHeader =>
  header(id, { parentSession: 'parent', isSeeded: true, seedLength })
const marker = (seq: number, inherited = true): SessionEvent => ev('session/end-seed', seq, inherited ? { inherited: true } : {})
const plugin = (seq: number, data: unknown = {}): SessionEvent => ev('plugin/x', seq, data)
const restore = (seed: unknown[], eventState: SessionSeedEventState, init: { header?: SessionHeader; count?: number } = {}) =>
  Session.fromRestore(sid('r'), { seed: seed as SessionEvent[], header: init.header ?? header('r'), inheritedEventCount: init.count ?? 0, eventState })

describe('snapshot construction', () => {
  it('S-072 a 5-event seed is copied exactly: equal, not the same objects, no marker, immune to later mutation', () => {
    const seed = [plugin(0, { a: [1] }), ev('turn/start', 1, { turn: 1 }),
      ev('user/message', 2, userMsg('u1'), { surfaceOp: 'append' }), plugin(3), ev('turn/end', 4, { turn: 1, reason: { kind: 'completed' } })]
    const s = Session.create(sid('s'), { seed })
    expect(s.events).toEqual(seed)
    expect(s.events.every((event, i) => event !== seed[i] && Object.isFrozen(event))).toBe(true)
    expect([s.firstLiveSeq, s.seq, s.inheritedEventCount]).toEqual([5, 5, 0])
    ;((seed[0]!.data as unknown as { a: number[] }).a).push(2)
    expect(s.events[0]!.data).toEqual({ a: [1] })
    expect(s.surface.nodes).toEqual([2])
  })

  it('S-073 a gap in seqs is INVALID_SEED with the index', () => {
    const error = expectError(() => Session.create(sid('s'), { seed: [plugin(0), plugin(2)] }), 'INVALID_SEED',
      'seed event at index 1: has seq 2; seed must be contiguous from 0')
    expect(error.index).toBe(1)
  })

  it('S-074 each envelope problem has its own detail', () => {
    const cases: [unknown, string][] = [
      [{ ...plugin(0), foo: 1 }, 'unknown key "foo"'],
      [{ ...plugin(0), time: -1 }, 'time must be a non-negative safe integer'],
      [{ type: 'plugin/x', seq: 0, time: 1 }, 'data is required'],
      [{ ...plugin(0), ignorable: false }, 'ignorable must be true when present'],
      [{ ...plugin(0), seq: '0' }, 'seq must be a non-negative safe integer'],
      [[], 'event must be an object'],
      [{ ...plugin(0), type: 7 }, 'type must be a string'],
    ]
    for (const [event, detail] of cases) {
      const error = expectError(() => Session.create(sid('s'), { seed: [event as SessionEvent] }), 'INVALID_EVENT',
        `seed event at index 0: invalid envelope: ${detail}`)
      expect(error.index).toBe(0)
    }
  })

  it('S-075 non-lossless seeds are NOT_JSON in every mode', () => {
    const notJson = ['NOT_JSON', 'seed event at index 0: is not lossless JSON'] as const
    expectError(() => Session.create(sid('s'), { seed: [plugin(0, { n: 1n })] }), ...notJson)
    expectError(() => restore([deepFreeze(plugin(0, { n: 1n }))], 'shared-frozen'), ...notJson)
    expectError(() => restore([JSON.parse('{"type":"plugin/x","seq":0,"time":1,"data":{"z":-0}}')], 'detached'), ...notJson)
    expectError(() => restore([JSON.parse('{"type":"plugin/x","seq":0,"time":1,"data":[1e999]}')], 'detached'), ...notJson)
  })

  it('S-076 a bad replace in a seed carries the seed prefix', () => {
    const seed = [ev('user/message', 0, userMsg('u0'), { surfaceOp: 'append' }), plugin(1),
      ev('user/message', 2, userMsg('u2'), { surfaceOp: { op: 'replace', start: 1, end: 1 }, sourceEventSeqs: [1] })]
    const error = expectError(() => Session.create(sid('s'), { seed }), 'INVALID_SURFACE',
      'seed event at index 2: surface replace: start seq 1 is not a current surface node')
    expect(error.index).toBe(2)
  })

  it('S-081 Session.create with no init has an empty log and a synthesised header', () => {
    const s = Session.create(sid('d'))
    expect([s.events.length, s.firstLiveSeq, s.inheritedEventCount, s.id]).toEqual([0, 0, 0, 'd'])
    expect(s.header).toEqual({ version: 2, id: 'd', createdAt: s.header.createdAt })
    expect(Object.keys(s.header)).toEqual(['version', 'id', 'createdAt'])
    expect(Number.isSafeInteger(s.header.createdAt)).toBe(true)
    expect(Object.isFrozen(s.header)).toBe(true)
  })
})

describe('restore construction', () => {
  it('S-077 a detached restore keeps and freezes the given objects and appends {} at seq n', () => {
    const seed = JSON.parse(JSON.stringify([plugin(0, { a: { b: 1 } }), ev('turn/start', 1, { turn: 1 }, {}, 900)])) as SessionEvent[]
    const s = restore(seed, 'detached')
    expect(s.events[0]).toBe(seed[0])
    expect(s.events[1]).toBe(seed[1])
    expect(Object.isFrozen((seed[0]!.data as unknown as { a: object }).a)).toBe(true)
    expect(s.events[2]).toEqual({ type: 'session/end-seed', seq: 2, time: s.events[2]!.time, data: {} })
    expect(s.events[2]!.time).toBeGreaterThanOrEqual(900)
    expect(Object.isFrozen(s.events[2]) && Object.isFrozen(s.events[2]!.data)).toBe(true)
    expect([s.firstLiveSeq, s.seq]).toEqual([2, 3])
  })

  it('S-078 a shared-frozen restore refuses unfrozen events and keeps frozen ones', () => {
    expectError(() => restore([plugin(0)], 'shared-frozen'), 'INVALID_SEED',
      'seed event at index 0: is not frozen (eventState shared-frozen)')
    expectError(() => restore([Object.freeze(plugin(0, { open: 1 }))], 'shared-frozen'), 'INVALID_SEED',
      'seed event at index 0: is not frozen (eventState shared-frozen)')
    const frozen = deepFreeze(plugin(0))
    expect(restore([frozen], 'shared-frozen').events[0]).toBe(frozen)
  })

  it('S-079 a log that already ends with a marker gets none; an empty restore gets one at 0', () => {
    const plain = restore([plugin(0), marker(1, false)], 'detached')
    expect([plain.seq, plain.firstLiveSeq]).toEqual([2, 2])
    const inherited = restore([plugin(0), marker(1)].map(deepFreeze), 'shared-frozen', { header: seededHeader('r', 1), count: 1 })
    expect(inherited.seq).toBe(2)
    const empty = restore([], 'detached')
    expect(empty.events).toEqual([{ type: 'session/end-seed', seq: 0, time: empty.events[0]!.time, data: {} }])
    expect(empty.firstLiveSeq).toBe(0)
  })

  it('S-079 restoring twice does not grow the log', () => {
    const first = restore([plugin(0)], 'detached')
    const again = restore(JSON.parse(JSON.stringify(first.events)) as unknown[], 'detached')
    expect(again.seq).toBe(first.seq)
  })

  it('S-080 the restore marker is caught up at session/created and never delivered as session/event', async () => {
    const { app, store } = await makeApp()
    const seen: string[] = []
    app.on('session/created', session => { seen.push(`created ${session.events.map(e => e.type).join(',')}`) })
    app.on('session/event', (_session, event) => { seen.push(`event ${event.type}`) })
    const s = store.prepare(sid('r'), { seed: [ev('turn/start', 0, { turn: 1 })], meta: header('r'), inheritedEventCount: 0,
      eventState: 'detached' })
    store.enter(s)
    store.announce(s)
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect(seen).toEqual(['created turn/start,session/end-seed', 'event turn/end'])
  })
})

describe('seeded contracts and headers', () => {
  const create = (seed: SessionEvent[] | undefined, head: SessionHeader, count?: number) => () =>
    Session.create(sid(head.id), { ...(seed ? { seed } : {}), header: head, ...(count === undefined ? {} : { inheritedEventCount: count }) })

  it('S-082 each of the seven seeded contracts has its message', () => {
    const cases: [() => unknown, string][] = [
      [create(undefined, seededHeader('s', 0), 0), 'seeded session requires an explicit constructor seed'],
      [create([], seededHeader('s', 0), 0), 'seeded session requires an explicit constructor seed'],
      [create([plugin(0), marker(1)], seededHeader('s', 1)), 'seeded session requires an inherited event count'],
      [create([plugin(0), marker(1)], seededHeader('s', 1), -1), 'inherited event count must be a non-negative safe integer, got -1'],
      [create([plugin(0)], header('s'), 1.5), 'inherited event count must be a non-negative safe integer, got 1.5'],
      [create([plugin(0)], header('s'), 2), 'non-seeded session must have inherited event count 0, got 2'],
      [create([plugin(0), marker(1)], seededHeader('s', 2), 1), 'inherited event count 1 does not match header seedLength 2'],
      [create([plugin(0), plugin(1)], seededHeader('s', 1), 1),
        'seeded session must mark its cut with session/end-seed {inherited: true} at index 1'],
      [create([plugin(0), marker(1, false)], seededHeader('s', 1), 1),
        'seeded session must mark its cut with session/end-seed {inherited: true} at index 1'],
      [create([plugin(0)], seededHeader('s', 1), 1),
        'seeded session must mark its cut with session/end-seed {inherited: true} at index 1'],
      [create([plugin(0), marker(1), plugin(2), marker(3)], seededHeader('s', 1), 1), 'unexpected inherited end-seed marker at index 3'],
      [create([marker(0)], header('s')), 'unexpected inherited end-seed marker at index 0'],
    ]
    for (const [build, message] of cases) expectError(build, 'INVALID_SEED', message)
  })

  it('S-083 inherited markers below the cut (a fork of a fork) are accepted', () => {
    const s = create([plugin(0), marker(1), plugin(2), marker(3)], seededHeader('s', 3), 3)() as Session
    expect([s.inheritedEventCount, s.firstLiveSeq, s.seq]).toEqual([3, 4, 4])
  })

  it('S-084 each header problem has its message, through construction and assertSessionHeader', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...header('d'), foo: 1 }, 'session header has unknown field "foo"'],
      [{ ...header('d'), version: 0 }, 'session header version must be 1 or 2, got 0'],
      [header('x') as never, 'session header id "x" does not match session id "d"'],
      [{ ...header('d'), createdAt: -1 }, 'session header createdAt must be a non-negative safe integer'],
      [{ ...header('d'), cwd: 'rel/dir' }, 'session header cwd must be an absolute path'],
      [{ ...header('d'), origin: 'x' }, 'session header origin must be "subagent"'],
      [{ ...header('d'), delegationDepth: 1.5 }, 'session header delegationDepth must be a non-negative safe integer'],
      [{ ...header('d'), isSeeded: 'yes' }, 'session header isSeeded must be a boolean'],
      [{ ...header('d'), seedLength: 1 }, 'session header seedLength requires isSeeded: true'],
      [{ ...header('d'), isSeeded: true, seedLength: 1 }, 'seeded session header requires parentSession and seedLength'],
    ]
    for (const [value, message] of cases) {
      expectError(() => Session.create(sid('d'), { header: value as never }), 'INVALID_HEADER', message)
      expectError(() => Session.fromRestore(sid('d'), { seed: [], header: value as never, inheritedEventCount: 0, eventState: 'detached' }),
        'INVALID_HEADER', message)
      expectError(() => assertSessionHeader(value, sid('d')), 'INVALID_HEADER', message)
    }
  })

  it('S-085 the header is copied and frozen; parentSession without isSeeded is accepted', () => {
    const input = { ...header('d'), parentSession: 'p', cwd: 'C:\\work' }
    const s = Session.create(sid('d'), { header: input as never })
    expect(s.header).toEqual(input)
    expect(s.header).not.toBe(input)
    expect(Object.isFrozen(s.header)).toBe(true)
    input.cwd = '/changed'
    expect(s.header.cwd).toBe('C:\\work')
  })

  it('S-086 an invalid session id is INVALID_SESSION_ID, checked before the header', () => {
    expectError(() => Session.create(sid('a/b')), 'INVALID_SESSION_ID', 'invalid session id "a/b"')
    expectError(() => Session.create(sid('a/b'), { header: { bogus: 1 } as never }), 'INVALID_SESSION_ID', 'invalid session id "a/b"')
    expectError(() => Session.fromRestore(sid(''), { seed: [], header: header(''), inheritedEventCount: 0, eventState: 'detached' }),
      'INVALID_SESSION_ID', 'invalid session id ""')
  })
})

describe('Session.fromShared (the live-fork builder)', () => {
  const parent = (): Session => Session.create(sid('p'), { seed: [
    ev('user/message', 0, userMsg('u0'), { surfaceOp: 'append' }), plugin(1),
    ev('user/message', 2, userMsg('u2'), { surfaceOp: 'append' }),
    ev('user/message', 3, userMsg('sum'), { surfaceOp: { op: 'replace', start: 0, end: 2 }, sourceEventSeqs: [0, 2] }),
    ev('request/context', 4, { provider: 'p', model: 'm' }),
  ] })

  it('shares the prefix objects, replays or takes the prefix surface, and checks only the tail', () => {
    const p = parent()
    const child = Session.fromShared(sid('c'), { header: seededHeader('c', 5), prefix: p.forkPrefix(4), tail: [deepFreeze(marker(5))], inheritedEventCount: 5 })
    expect(child.events.slice(0, 5).every((event, i) => event === p.events[i])).toBe(true)
    expect(child.surface).toEqual(p.surface)
    expect([child.firstLiveSeq, child.inheritedEventCount, child.seq]).toEqual([6, 5, 6])
    expect(child.requestContext()).toBe(p.requestContext())
    const given = Session.fromShared(sid('c'), { header: seededHeader('c', 5), prefix: { ...p.forkPrefix(4), surface: new SurfaceState([7], 4) },
      tail: [marker(5)], inheritedEventCount: 5 })
    expect(given.surface).toEqual({ nodes: [7], replaceGeneration: 4 })
    appendAs(child, 'plugin/x', {})
    expect([p.seq, p.events.length, given.seq]).toEqual([5, 5, 6])
    const error = expectError(() => Session.fromShared(sid('c'), { header: seededHeader('c', 5), prefix: p.forkPrefix(4), tail: [marker(6)], inheritedEventCount: 5 }),
      'INVALID_SEED', 'seed event at index 5: has seq 6; seed must be contiguous from 0')
    expect(error.index).toBe(5)
    expectError(() => Session.fromShared(sid('c'), { header: seededHeader('c', 4), prefix: p.forkPrefix(4), tail: [marker(5)], inheritedEventCount: 5 }),
      'INVALID_SEED', 'inherited event count 5 does not match header seedLength 4')
  })

  it('takes the surface of a prefix with no replace by binary search, and indexes the prefix', () => {
    const p = Session.create(sid('p'), { seed: [
      ev('turn/start', 0, { turn: 1 }), ev('user/message', 1, userMsg('u1'), { surfaceOp: 'append' }),
      ev('request/header', 2, { header: { config: { provider: 'p', model: 'm' } }, reason: 'initial' }),
      ev('user/message', 3, userMsg('u3'), { surfaceOp: 'append' }), ev('turn/end', 4, { turn: 1, reason: { kind: 'completed' } }),
      ev('request/header', 5, { header: { config: { provider: 'q', model: 'n' } }, reason: 'change' }),
    ] })
    const prefix = p.forkPrefix(2)
    expect(prefix.events.slice(0, prefix.events.length)).toEqual(p.events.slice(0, 3))
    expect(prefix.surface?.snapshot()).toEqual({ nodes: [1], replaceGeneration: 0 })
    expect([prefix.index.lastTurnBoundary(2), p.forkPrefix(5).index.lastTurnBoundary(5)]).toEqual([0, 4])
    const child = Session.fromShared(sid('c'), { header: seededHeader('c', 3), prefix, tail: [marker(3)], inheritedEventCount: 3 })
    const headerOf = (event: SessionEvent | undefined): unknown => (event?.data as { header?: unknown } | undefined)?.header
    expect(child.requestHeader()).toBe(headerOf(p.events[2]))
    expect(p.requestHeader()).toBe(headerOf(p.events[5]))
    expect(child.surface).toEqual({ nodes: [1], replaceGeneration: 0 })
  })
})

describe('construction order and inputs (01 §5.1–§5.2)', () => {
  it('checks the header before the seed, and every seed event before the seeded contracts', () => {
    expectError(() => Session.create(sid('s'), { seed: [plugin(5)], header: header('s', { foo: 1 }) }), 'INVALID_HEADER',
      'session header has unknown field "foo"')
    expectError(() => Session.create(sid('s'), { seed: [plugin(0), plugin(5)], header: seededHeader('s', 1) }), 'INVALID_SEED',
      'seed event at index 1: has seq 5; seed must be contiguous from 0')
    expectError(() => Session.create(sid('s'), { seed: [marker(0)], header: header('s'), inheritedEventCount: 3 }), 'INVALID_SEED',
      'non-seeded session must have inherited event count 0, got 3')
  })

  it('runs the §5.2 steps of one entry in order: lossless, envelope, contiguity, content, surface plan', () => {
    const at1 = (event: unknown): SessionEvent[] => [plugin(0), event as SessionEvent]
    const cases: [unknown[], string, string][] = [
      [at1({ type: 'plugin/x', seq: 9, time: -1, data: { a: 1n }, foo: 1 }), 'NOT_JSON', 'is not lossless JSON'],
      [at1({ type: 'plugin/x', seq: 9, time: -1, data: {} }), 'INVALID_EVENT', 'invalid envelope: time must be a non-negative safe integer'],
      [at1(ev('Bad/x', 9, {})), 'INVALID_SEED', 'has seq 9; seed must be contiguous from 0'],
      [at1(ev('Bad/x', 1, {}, { surfaceOp: 'append' })), 'INVALID_EVENT', 'event type "Bad/x" is invalid'],
      [at1(ev('user/message', 1, userMsg('u'), { ignorable: true })), 'INVALID_EVENT', 'event "user/message": surface events cannot be ignorable'],
      [at1(ev('user/message', 1, {}, { surfaceOp: 'bogus' })), 'INVALID_EVENT', 'event "user/message": data.id is required'],
      [at1(ev('turn/start', 1, { turn: 1 }, { surfaceOp: 'append' })), 'INVALID_SURFACE',
        'event "turn/start" is not a surface type and cannot carry surfaceOp'],
    ]
    for (const [seed, code, message] of cases) {
      const error = expectError(() => Session.create(sid('s'), { seed: seed as SessionEvent[] }), code, `seed event at index 1: ${message}`)
      expect(error.index).toBe(1)
    }
    expectError(() => restore([plugin(0, { a: 1n })], 'shared-frozen'), 'INVALID_SEED',
      'seed event at index 0: is not frozen (eventState shared-frozen)')
  })

  it('refuses a seed that is not an array, an unknown eventState and a meta that is not an object', async () => {
    expectError(() => Session.create(sid('s'), { seed: {} as never }), 'INVALID_SEED', 'seed must be an array')
    expectError(() => restore(undefined as never, 'detached'), 'INVALID_SEED', 'seed must be an array')
    expectError(() => restore([], 'copied' as never), 'INVALID_SEED', 'eventState must be "detached" or "shared-frozen", got copied')
    const { store } = await makeApp()
    expectError(() => store.prepare(sid('m'), { meta: 'x' as never }), 'INVALID_HEADER', 'session header must be a plain object')
    expectError(() => store.prepare(sid('m'), { meta: null as never }), 'INVALID_HEADER', 'session header must be a plain object')
    expect(store.list()).toEqual([])
  })
})
