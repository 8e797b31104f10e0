import { openTurnClosers, type Session, SessionId, type SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { CompactionError, entryState } from '../src/index.ts'
import { agentOf, boot, filler, LogBuilder, type TestApp } from './helpers.ts'

/** Restore `events` (plus interrupted closers) as a new published session, as resume does: it gains an end-seed. */
function restore(env: TestApp, events: readonly SessionEvent[], id: string): Session {
  const seed = JSON.parse(JSON.stringify([...events, ...openTurnClosers(events, { kind: 'interrupted' })])) as SessionEvent[]
  const session = env.app.sessions.prepare(SessionId(id), {
    seed, meta: { version: 1, id: SessionId(id), createdAt: 0 }, inheritedEventCount: 0, eventState: 'detached',
  })
  env.app.sessions.enter(session)
  env.app.sessions.announce(session)
  return session
}

describe('entry state and the lock', () => {
  it('L-029 an unmatched compaction/start after the newest end-seed → compactRegion rejects BUSY naming that seq; no events', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app).fullTurn('one', 'c1', filler(200))
    const first = log.s.surface.nodes[0]!
    log.startTurn('two')
    const start = log.s.append('compaction/start', { compactionId: 'x1', turn: 2, trigger: 'explicit' })
    const state = entryState(log.s)
    expect(state.lock).toEqual({ seq: start.seq, compactionId: 'x1', turn: 2 })
    expect(state.openTurn).toBe(2)
    const before = log.s.seq
    const error = await env.compaction.compactRegion(agentOf(log.s), { start: first, end: log.s.surface.nodes[3]! })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CompactionError)
    expect(error).toMatchObject({ code: 'BUSY', message: `compaction already in progress (compaction/start at seq ${start.seq})` })
    expect(log.s.seq).toBe(before)
  })

  it('L-029 after a resume, a new unmatched start (after the end-seed) is the live lock; the older orphan is not', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app, 'old').fullTurn('one', 'c1', filler(200)).startTurn('two')
    const orphan = log.s.append('compaction/start', { compactionId: 'orphan', turn: 2, trigger: 'pressure' })
    const resumed = restore(env, log.s.events, 'resumed')
    const next = new LogBuilder(resumed)
    next.turn = 2
    next.startTurn('three')
    const start = resumed.append('compaction/start', { compactionId: 'x2', turn: 3, trigger: 'explicit' })
    expect(entryState(resumed)).toEqual({
      endSeedSeq: start.seq - 3, unmatchedStart: { seq: start.seq, compactionId: 'x2', turn: 3 },
      lock: { seq: start.seq, compactionId: 'x2', turn: 3 }, openTurn: 3,
    })
    expect(start.seq).toBeGreaterThan(orphan.seq)
    const before = resumed.seq
    const nodes = resumed.surface.nodes
    const error = await env.compaction.compactRegion(agentOf(resumed), { start: nodes[0]!, end: nodes[3]! }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'BUSY', message: `compaction already in progress (compaction/start at seq ${start.seq})` })
    expect(resumed.seq).toBe(before)
  })

  it('L-030 an unmatched start before an end-seed is not a lock; a new bracket succeeds and the companion accepts it', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app, 'old').fullTurn('one', 'c1', filler(200)).startTurn('two')
    const start = log.s.append('compaction/start', { compactionId: 'orphan', turn: 2, trigger: 'pressure' })
    const resumed = restore(env, log.s.events, 'resumed')
    const state = entryState(resumed)
    expect(state.unmatchedStart?.seq).toBe(start.seq)
    expect(state.endSeedSeq).toBe(resumed.seq - 1)
    expect(state.lock).toBeNull()
    expect(state.openTurn).toBeNull()
    const next = new LogBuilder(resumed)
    next.turn = 2
    next.startTurn('three')
    const nodes = resumed.surface.nodes
    const result = await env.compaction.compactRegion(agentOf(resumed), { start: nodes[0]!, end: nodes[3]! })
    expect(resumed.events[result.endSeq]).toMatchObject({ type: 'compaction/end', data: { compactionId: result.compactionId, turn: 3 } })
    expect(resumed.events[result.startSeq]!.data).toMatchObject({ turn: 3, trigger: 'explicit' })
  })

  it('entryState: an empty log has no markers; an end after a start leaves no unmatched start; the newest turn/start is the open turn', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app)
    expect(entryState(log.s)).toEqual({ endSeedSeq: null, unmatchedStart: null, lock: null, openTurn: null })
    log.startTurn('hi')
    log.s.append('compaction/start', { compactionId: 'a', turn: 1, trigger: 'explicit' })
    log.s.append('compaction/end', { compactionId: 'a', turn: 1, error: { code: 'CHANGED', message: 'session surface changed during compaction' } })
    expect(entryState(log.s)).toEqual({ endSeedSeq: null, unmatchedStart: null, lock: null, openTurn: 1 })
  })
})
