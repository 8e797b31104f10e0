import {
  decodeStorageRun, EventLog, eventsView, packChunkRuns, SessionId, type Session, type SessionEvent,
} from '@logbook/session'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { appendTitle, foldProjection, statsProjection, titleProjection, todosProjection, type ProjectionDefinition } from '../src/index.ts'
import { makeApp, turn } from './helpers.ts'

type Op = { readonly kind: 'turn'; readonly calls: number; readonly chunks: number } | { readonly kind: 'title'; readonly text: string }
  | { readonly kind: 'todo'; readonly n: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('turn' as const), calls: fc.integer({ min: 0, max: 2 }), chunks: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('title' as const), text: fc.string({ minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('todo' as const), n: fc.integer({ min: 0, max: 3 }) }),
)

/** Turns whose steps stream `chunks` text deltas before their message (packed into rows when ≥ 3). */
function play(s: Session, ops: readonly Op[]): void {
  let turns = 0
  let calls = 0
  for (const o of ops) {
    switch (o.kind) {
      case 'turn': {
        const n = ++turns
        turn(s, n, Array.from({ length: o.calls }, () => `c${++calls}`))
        s.append('turn/start', { turn: n + 1000 })
        s.append('step/start', { turn: n + 1000, step: 1 })
        for (let i = 0; i < o.chunks; i++) {
          s.append('assistant/chunk', { turn: n + 1000, step: 1, chunk: { type: 'text-delta', index: 0, text: `w${i}` } })
        }
        s.append('step/end', { turn: n + 1000, step: 1 })
        s.append('turn/end', { turn: n + 1000, reason: { kind: 'completed' } })
        break
      }
      case 'title': appendTitle(s, o.text); break
      case 'todo': s.append('todo/write', { todos: Array.from({ length: o.n }, (_, i) => ({ content: `t${i}`, status: 'pending' as const })) }); break
    }
  }
}

const parsed = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown

/** The stored records of `events`, parsed back, with each chunk row kept packed behind an events view. */
function lazySeed(events: readonly SessionEvent[]): readonly SessionEvent[] {
  const log = new EventLog()
  for (const record of packChunkRuns(events)) {
    const value = parsed(record)
    const run = decodeStorageRun(value)
    if (run === undefined) log.push(value as SessionEvent)
    else log.pushRun(run)
  }
  return eventsView(log)
}

describe('projections over a restore that keeps chunk runs packed (01 §10, 03 §1.6)', () => {
  // Restore markers take `Date.now()`: one fixed clock makes both restores stamp the same time.
  beforeEach(() => void vi.useFakeTimers({ now: 1_700_000_000_000 }))
  afterEach(() => void vi.useRealTimers())

  it('L-200 lazy equals eager on random logs: every built-in projection, folded and live', async () => {
    const { app } = await makeApp()
    let n = 0
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async ops => {
      const source = app.sessions.create(SessionId(`src${++n}`))
      play(source, ops)
      const restored = (id: string, seed: readonly SessionEvent[]): Session => {
        const header = { ...source.header, id } as never
        const s = app.sessions.prepare(SessionId(id), { seed, meta: header, inheritedEventCount: 0, eventState: 'detached' })
        app.sessions.enter(s)
        app.sessions.announce(s)
        return s
      }
      const lazy = restored(`lazy${n}`, lazySeed(source.events))
      const eager = restored(`eager${n}`, source.events.map(event => parsed(event) as SessionEvent))
      const p = app.sessionProjections
      const same = <S, V>(def: ProjectionDefinition<S, V, string>): void => {
        expect(p.stateOf(lazy, def.key)).toEqual(p.stateOf(eager, def.key))
        expect(foldProjection(def, lazy.events)).toEqual(foldProjection(def, eager.events))
      }
      same(statsProjection)
      same(todosProjection)
      same(titleProjection)
    }), { numRuns: 40 })
  })
})
