import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  decodeStorageRun, EventLog, eventsView, forkSeed, packChunkRuns, SessionId, type Session,
  type SessionEvent, type SessionStore,
} from '../src/index.ts'
import { makeApp, plainAssistant, plainUser } from './harness.ts'

type Chunk = { readonly kind: 'text' | 'reasoning' | 'tool' | 'tool-named'; readonly n: number; readonly step: number }
type Step =
  | { readonly k: 'turn' }
  | { readonly k: 'user' }
  | { readonly k: 'chunks'; readonly chunk: Chunk }
  | { readonly k: 'assistant'; readonly calls: number }
  | { readonly k: 'tool' }
  | { readonly k: 'plugin' }
  | { readonly k: 'replace' }

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant({ k: 'turn' as const }), weight: 1 },
  { arbitrary: fc.constant({ k: 'user' as const }), weight: 2 },
  {
    arbitrary: fc.record({
      k: fc.constant('chunks' as const),
      chunk: fc.record({
        kind: fc.constantFrom('text' as const, 'reasoning' as const, 'tool' as const, 'tool-named' as const),
        n: fc.integer({ min: 1, max: 9 }),
        step: fc.integer({ min: 1, max: 3 }),
      }),
    }),
    weight: 5,
  },
  { arbitrary: fc.record({ k: fc.constant('assistant' as const), calls: fc.integer({ min: 0, max: 2 }) }), weight: 2 },
  { arbitrary: fc.constant({ k: 'tool' as const }), weight: 1 },
  { arbitrary: fc.constant({ k: 'plugin' as const }), weight: 1 },
  { arbitrary: fc.constant({ k: 'replace' as const }), weight: 1 },
)

function chunkData(c: Chunk, i: number, word: string): unknown {
  switch (c.kind) {
    case 'text': return { turn: 1, step: c.step, chunk: { type: 'text-delta', index: 0, text: word } }
    case 'reasoning': return { turn: 1, step: c.step, chunk: { type: 'reasoning-delta', index: 1, text: word } }
    case 'tool': return { turn: 1, step: c.step, chunk: { type: 'tool-call-delta', index: 0, id: `c${c.step}`, argumentsDelta: `${i}` } }
    case 'tool-named': return { turn: 1, step: c.step, chunk: { type: 'tool-call-delta', index: 0, id: 'cn', name: 'grep', argumentsDelta: word } }
  }
}

type Append = (type: string, data: unknown, opts?: unknown) => SessionEvent

/** Write `steps` into a live session (each valid by construction) and return its events as plain JSON copies. */
function writeLog(session: Session, steps: readonly Step[], words: readonly string[]): void {
  const append = session.append.bind(session) as unknown as Append
  const at = (i: number): string => words[i % words.length]!
  steps.forEach((s, n) => {
    switch (s.k) {
      case 'turn': return void append('turn/start', { turn: n + 1 })
      case 'user': return void append('user/message', plainUser(`u${n}`, at(n)), { surfaceOp: 'append' })
      case 'chunks':
        for (let i = 0; i < s.chunk.n; i++) append('assistant/chunk', chunkData(s.chunk, i, at(n + i)))
        return
      case 'assistant': {
        const calls = Array.from({ length: s.calls }, (_, c) => `a${n}c${c}`)
        return void append('assistant/message', { turn: 1, step: 1, message: plainAssistant(`a${n}`, calls, at(n)) }, { surfaceOp: 'append', sourceEventSeqs: [] })
      }
      case 'tool': return void append('plugin/x', { n, note: at(n) })
      case 'plugin': return void append('plugin/x', { n }, { ignorable: true })
      case 'replace': {
        const nodes = session.surface.nodes
        const last = nodes[nodes.length - 1]
        if (last === undefined || session.events[last]!.type !== 'user/message') return
        append('user/message', plainUser(`r${n}`, 'summary'), { surfaceOp: { op: 'replace', start: last, end: last }, sourceEventSeqs: [last] })
      }
    }
  })
}

/** What a backend reads back: the stored records, each parsed from its own JSON text. */
function storedRecords(events: readonly SessionEvent[]): unknown[] {
  return packChunkRuns(events).map(record => JSON.parse(JSON.stringify(record)) as unknown)
}

function restore(store: SessionStore, id: string, seed: readonly SessionEvent[], header: Session['header']): Session {
  const session = store.prepare(SessionId(id), { seed, meta: { ...header, id } as never, inheritedEventCount: 0, eventState: 'detached' })
  store.enter(session)
  store.announce(session)
  return session
}

/** A log of `records` as a restore holds it: each packed row a run, every other record an event. */
function packedLog(records: readonly unknown[]): EventLog {
  const log = new EventLog()
  for (const value of records) {
    const run = decodeStorageRun(value)
    if (run === undefined) log.push(value as SessionEvent)
    else log.pushRun(run)
  }
  return log
}

function lazySeed(records: readonly unknown[]): readonly SessionEvent[] {
  return eventsView(packedLog(records))
}

/** The eager reference: every event its own parsed record (no packing), as a plain array. */
const eagerSeed = (events: readonly SessionEvent[]): SessionEvent[] => events.map(event => JSON.parse(JSON.stringify(event)) as SessionEvent)

function deepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(deepFrozen)
}

/** Everything a reader can observe of a session, as JSON. */
function observed(session: Session): unknown {
  return { events: JSON.stringify([...session.events]), surface: session.surface, messages: session.deriveMessages(), seq: session.seq }
}

describe('lazy packed chunk runs (01 §10, §5)', () => {
  // Restore markers take `Date.now()`: one fixed clock makes both restores stamp the same time.
  beforeEach(() => void vi.useFakeTimers({ now: 1_700_000_000_000 }))
  afterEach(() => void vi.useRealTimers())

  it('S-200 lazy equals eager on random logs: events, surface, derived messages, fork children, later appends', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(step, { minLength: 1, maxLength: 40 }),
      fc.array(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.nat(),
      async (steps, words, probes, cut) => {
        const { store } = await makeApp()
        store.registerEventType('plugin/x')
        const source = store.create(SessionId('source'))
        writeLog(source, steps, words)
        const records = storedRecords(source.events)
        const lazy = restore(store, 'lazy', lazySeed(records), source.header)
        const eager = restore(store, 'eager', eagerSeed(source.events), source.header)
        // Read some members first, in a random order: the cache must not change what later readers see.
        for (const p of probes) {
          const i = p % lazy.events.length
          expect(lazy.events[i]).toBe(lazy.events[i])
          expect(deepFrozen(lazy.events[i])).toBe(true)
        }
        expect(observed(lazy)).toEqual(observed(eager))
        expect([...lazy.events]).toEqual([...eager.events])
        expect(lazy.events.every(deepFrozen)).toBe(true)
        const b = cut % lazy.seq
        const [lazyChild, eagerChild] = [store.fork(lazy, b), store.fork(eager, b)]
        expect(observed(lazyChild)).toEqual(observed(eagerChild))
        expect(lazyChild.events.slice(0, b + 1).every((event, i) => event === lazy.events[i])).toBe(true)
        expect(forkSeed(lazy.header, lazy.events, b).seed).toEqual(forkSeed(eager.header, eager.events, b).seed)
        for (const s of [lazy, eager]) (s.append as unknown as Append).call(s, 'user/message', plainUser('after', 'more'), { surfaceOp: 'append' })
        expect(observed(lazy)).toEqual(observed(eager))
      },
    ), { numRuns: 150 })
  })

  it('S-201 a restore keeps packed members unbuilt until read, then builds each once', async () => {
    const { store } = await makeApp()
    const source = store.create(SessionId('source'))
    const append = source.append.bind(source) as unknown as Append
    append('turn/start', { turn: 1 })
    for (let i = 0; i < 6; i++) append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: `w${i}` } })
    append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const records = storedRecords(source.events)
    expect(records).toHaveLength(3)
    const run = decodeStorageRun(records[1])!
    const log = new EventLog()
    log.push(records[0] as SessionEvent)
    log.pushRun(run)
    log.push(records[2] as SessionEvent)
    const restored = restore(store, 'restored', eventsView(log), source.header)
    // The adopted log still holds the run at every member slot: nothing read them.
    expect([1, 2, 3, 4, 5, 6].every(i => log.runAt(i) === run)).toBe(true)
    const third = restored.events[3]
    expect(third).toBe(run.member(2))
    expect(log.runAt(3)).toBeUndefined()
    expect([...restored.events].map(event => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    expect(restored.events.slice(1, 7)).toEqual(source.events.slice(1, 7))
  })

  it('S-148 slice builds a packed member wherever one may sit, also in a prefix, and copies a pushed-only log as is', async () => {
    const { store } = await makeApp()
    const source = store.create(SessionId('source'))
    writeLog(source, [{ k: 'turn' }, { k: 'user' }, { k: 'chunks', chunk: { kind: 'text', n: 5, step: 1 } }, { k: 'assistant', calls: 0 }], ['a'])
    const records = storedRecords(source.events)
    const pushed = new EventLog()
    for (const event of source.events) pushed.push(event)
    const packed = packedLog(records)
    const plain = JSON.parse(JSON.stringify(source.events)) as unknown
    expect(pushed.slice(0, pushed.length)).toEqual(source.events.slice())
    expect(pushed.slice(0, pushed.length).every((event, i) => event === source.events[i])).toBe(true)
    const sliced = (log: EventLog): void => {
      const all = log.slice(0, log.length)
      expect(all.some(slot => !Object.hasOwn(slot, 'seq'))).toBe(false)
      expect(JSON.parse(JSON.stringify(all))).toEqual((plain as unknown[]).slice(0, log.length))
    }
    sliced(packed.prefix(packed.length))
    sliced(packed.prefix(5).prefix(4))
    // A prefix's slice builds into the prefix's slots: the parent, which shares its runs, still holds them packed.
    expect(packed.runAt(3)).toBeDefined()
    sliced(packed)
    expect(packed.runAt(3)).toBeUndefined()
  })

  it('S-147 typeAt gives each event\'s type without building a packed member', async () => {
    const { store } = await makeApp()
    store.registerEventType('plugin/x')
    const source = store.create(SessionId('source'))
    writeLog(source, [{ k: 'turn' }, { k: 'user' }, { k: 'chunks', chunk: { kind: 'text', n: 5, step: 1 } },
      { k: 'chunks', chunk: { kind: 'tool-named', n: 3, step: 1 } }, { k: 'assistant', calls: 0 }, { k: 'tool' },
      { k: 'plugin' }, { k: 'chunks', chunk: { kind: 'reasoning', n: 4, step: 2 } }], ['a', 'b'])
    const log = packedLog(storedRecords(source.events))
    const restored = restore(store, 'restored', eventsView(log), source.header)
    // The restore marker's time follows the last event's, so the restore built that member; the others are packed.
    const packed = Array.from({ length: log.length }, (_, i) => log.runAt(i) !== undefined)
    expect(packed.filter(Boolean)).toHaveLength(11)
    const types = Array.from({ length: restored.seq }, (_, seq) => restored.typeAt(seq))
    // typeAt built nothing: every member slot still holds its run.
    expect(Array.from({ length: log.length }, (_, i) => log.runAt(i) !== undefined)).toEqual(packed)
    expect(types.slice(0, source.seq)).toEqual(source.events.map(event => event.type))
    expect([-1, restored.seq, 1.5].map(seq => restored.typeAt(seq))).toEqual([undefined, undefined, undefined])
    expect(types).toEqual([...restored.events].map(event => event.type))
  })

  it('S-201 a packed row whose shared numbers break the payload rules is refused as its unpacked members are', async () => {
    const { store } = await makeApp()
    const header = store.create(SessionId('header-source')).header
    const row = (data: Record<string, unknown>): unknown => ({ type: 'text-chunks', seq0: 1, time0: 5, data: { dt: [1, 1], texts: ['a', 'b', 'c'], ...data } })
    const cases = [{ turn: 0, step: 1, index: 0 }, { turn: 1, step: 1.5, index: 0 }, { turn: 1, step: 1, index: -1 }, { turn: 1, step: 1, index: -0 }]
    for (const [n, shared] of cases.entries()) {
      const records = [{ type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } }, row(shared)]
      const error = (seed: readonly SessionEvent[]): unknown => {
        try {
          store.prepare(SessionId(`bad-${n}`), { seed, meta: { ...header, id: `bad-${n}` } as never, inheritedEventCount: 0, eventState: 'detached' })
        } catch (caught) {
          return { code: (caught as { code?: unknown }).code, message: (caught as Error).message }
        }
        return 'accepted'
      }
      const eager = error(records.flatMap(record => decodeStorageRun(record)?.members().map(m => structuredClone(m) as SessionEvent) ?? [record as SessionEvent]))
      expect(['INVALID_EVENT', 'NOT_JSON']).toContain((eager as { code?: unknown }).code)
      expect(error(lazySeed(records))).toEqual(eager)
    }
  })
})

