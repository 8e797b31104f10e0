/** Fork lineage through persistence (spec 02 §4.1 lineage, 01 §7): P-085, P-086. */

import { expect, it } from 'vitest'
import { forkSeed, type Session, type SessionId } from '@logbook/session'
import { useHarness, type Mount } from '../harness.ts'
import { appendLive, completeTurn, openToolStep } from '../events.ts'
import { expectLossless, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { itUnless } from './it-unless.ts'

/** A live parent `p1` (cwd /home/user/fork, delegationDepth 1) with a complete turn and an open tool step; flushed. */
async function liveParent(m: Mount): Promise<Session> {
  const { session } = m.live('p1', { meta: { cwd: '/home/user/fork', delegationDepth: 1 } })
  for (const e of [...completeTurn(0, 1), ...openToolStep(6, 2, ['c1'], ['c2'])]) appendLive(session, e)
  await m.sessions.flush(session)
  return session
}

/** Register the `fork-lineage` cases. */
export function forkLineageCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-085 a fork inside an open turn is stored as prefix, end-seed{inherited} at the time of b, forked closers, with its lineage header; the parent is unchanged', async () => {
    const m = await h.mount()
    const parent = await liveParent(m)
    const before = await storedState(m, 'p1')
    const b = 9
    const child = m.sessions.fork(parent, b, 'k1' as SessionId)
    await m.sessions.flush(child)
    const stored = await m.persistence.readFrom('k1', 0)
    const expected = forkSeed(parent.header, parent.events, b).seed
    expectLossless(stored, expected)
    expectLossless(stored.slice(0, b + 1), parent.events.slice(0, b + 1))
    expect(stored[b + 1]).toMatchObject({ type: 'session/end-seed', seq: b + 1, time: parent.events[b]!.time, data: { inherited: true } })
    const closers = stored.slice(b + 2)
    expect(closers.map(e => e.type)).toEqual(['tool/result', 'tool/result', 'step/end', 'turn/end'])
    expect(closers.at(-1)!.data).toEqual({ turn: 2, reason: { kind: 'forked' } })
    const inspection = await m.persistence.inspect('k1')
    expect(inspection.header).toMatchObject({ id: 'k1', parentSession: 'p1', seedLength: b + 1, isSeeded: true, cwd: '/home/user/fork', delegationDepth: 1 })
    expect(inspection.inheritedEventCount).toBe(b + 1)
    expect(inspection.openTurn).toBeNull()
    const after = await storedState(m, 'p1')
    expect(after).toEqual(before)
  })

  itUnless(!options.capabilities.durableAcrossInstances)('P-086 a fork child resumed in a new instance has identical events and inheritedEventCount b+1; list finds it; a grandchild keeps its lineage', async () => {
    const m1 = await h.mount()
    const parent = await liveParent(m1)
    const child = m1.sessions.fork(parent, 9, 'k1' as SessionId)
    child.append('turn/start', { turn: 3 })
    await m1.sessions.flush(child)
    const stored = await m1.persistence.readFrom('k1', 0)
    await m1.dispose()
    const m2 = await h.mount()
    const resumed = await m2.resume('k1')
    expectLossless(resumed.events, stored)
    expect(resumed.handle.inheritedEventCount).toBe(10)
    expect(resumed.session.inheritedEventCount).toBe(10)
    expect((await m2.persistence.list({ parentSession: 'p1' })).items.map(i => i.id)).toEqual(['k1'])
    const grandchild = m2.sessions.fork(resumed.session, undefined, 'g1' as SessionId)
    await m2.sessions.flush(grandchild)
    await m2.sessions.flush(resumed.session)
    const g = await m2.persistence.inspect('g1')
    expect(g.header).toMatchObject({ parentSession: 'k1', isSeeded: true, seedLength: resumed.session.seq, cwd: '/home/user/fork', delegationDepth: 1 })
    expect(g.inheritedEventCount).toBe(resumed.session.seq)
    expectLossless(g.events.slice(0, resumed.session.seq), [...resumed.session.events])
    expect((await m2.persistence.list({ parentSession: 'k1' })).items.map(i => i.id)).toEqual(['g1'])
    await m2.dispose()
    const m3 = await h.mount()
    const again = await m3.resume('g1')
    expect(again.handle.inheritedEventCount).toBe(g.inheritedEventCount)
    expect(again.events.filter(e => e.type === 'session/end-seed' && (e.data as { inherited?: true }).inherited)).toHaveLength(2)
    again.detach()
  })
}
