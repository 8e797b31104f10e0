/** Resume and repair through handles (spec 02 §4.2, §4.3): P-062–P-066, P-068, P-069 (P-067 is retired). */

import { expect, it } from 'vitest'
import { forkSeed, openTurnClosers, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN, type SessionHeader } from '@logbook/session'
import { useHarness } from '../harness.ts'
import { completeTurn, completeTurns, event, header, openToolStep } from '../events.ts'
import { expectLossless, expectUnchanged, listed, rejects, rejectsWith, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { itUnless } from './it-unless.ts'

/** Register the `resume` cases. */
export function resumeCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-062 a balanced log resumes without recovery or closers; after publish the store holds the log plus session/end-seed {}', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurns(2))
    const { session, handle, closers, detach } = await m.resume('s1')
    expect(handle.recovery).toBeNull()
    expect(closers).toEqual([])
    await m.sessions.flush(session)
    const stored = await m.persistence.readFrom('s1', 0)
    expectLossless(stored.slice(0, 12), completeTurns(2))
    expect(stored).toHaveLength(13)
    expect(stored[12]).toMatchObject({ type: 'session/end-seed', seq: 12, data: {} })
    expectLossless(stored, [...session.events])
    detach()
  })

  it('P-063 an open step with one started and one requested call resumes with OUTCOME_UNKNOWN, NOT_STARTED, step/end, turn/end{interrupted}', async () => {
    const m = await h.mount()
    const events = [...completeTurn(0, 1), ...openToolStep(6, 2, ['c1'], ['c2'])]
    await m.store('s1', events)
    const handle = await m.persistence.open('s1', 'write')
    const read = await handle.read(0)
    expectLossless(read, events)
    const closers = openTurnClosers(read, { kind: 'interrupted' })
    expect(closers.map(e => e.type)).toEqual(['tool/result', 'tool/result', 'step/end', 'turn/end'])
    const [c1, c2] = closers.map(e => e.data as { message: { source: { callId: string } }; error: { code: string } })
    expect([c1!.message.source.callId, c1!.error.code]).toEqual(['c1', TOOL_OUTCOME_UNKNOWN])
    expect([c2!.message.source.callId, c2!.error.code]).toEqual(['c2', TOOL_NOT_STARTED])
    expect(closers[3]!.data).toEqual({ turn: 2, reason: { kind: 'interrupted' } })
    const { nextSeq, revision } = await handle.append(closers)
    expect(nextSeq).toBe(events.length + 4)
    expectLossless(await handle.read(0), [...events, ...closers])
    expect((await m.persistence.inspect('s1')).revision).toBe(handle.revision)
    expect(handle.revision).toBe(revision)
    await handle.close()
  })

  it('P-064 a crash after the closers and before publication: the next resume appends none', async () => {
    const m = await h.mount()
    const events = openToolStep(0, 1, ['c1'])
    await m.store('s1', events)
    const first = await m.persistence.open('s1', 'write')
    const closers = openTurnClosers(await first.read(0), { kind: 'interrupted' })
    await first.append(closers)
    await first.close()
    const { session, closers: again, detach } = await m.resume('s1')
    expect(again).toEqual([])
    await m.sessions.flush(session)
    const stored = await m.persistence.readFrom('s1', 0)
    expectLossless(stored.slice(0, events.length + closers.length), [...events, ...closers])
    expect(stored.at(-1)).toMatchObject({ type: 'session/end-seed', data: {} })
    expect(stored.filter(e => e.type === 'turn/end')).toHaveLength(1)
    detach()
  })

  it('P-065 two concurrent resumes in one process: one is SESSION_LOCKED at open, before any read', async () => {
    const m = await h.mount()
    await m.store('s1', openToolStep(0, 1, ['c1']))
    const outcomes = await Promise.allSettled([m.resume('s1'), m.resume('s1')])
    expect(outcomes.map(o => o.status).sort()).toEqual(['fulfilled', 'rejected'])
    const failed = outcomes.find(o => o.status === 'rejected') as PromiseRejectedResult
    const error = await rejects(Promise.reject(failed.reason), 'SESSION_LOCKED')
    expect(error.details?.['holder']).toEqual({ scope: 'in-process', kind: 'handle' })
    const won = (outcomes.find(o => o.status === 'fulfilled') as PromiseFulfilledResult<Awaited<ReturnType<typeof m.resume>>>).value
    expect(won.closers).toHaveLength(3)
    await m.sessions.flush(won.session)
    expect((await m.persistence.readFrom('s1', 0)).filter(e => e.type === 'turn/end')).toHaveLength(1)
    won.detach()
  })

  it('P-066 a resume aborted after open: the handle closes, the lock is released, the id resumes later', async () => {
    const m = await h.mount()
    await m.store('s1', openToolStep(0, 1, ['c1']))
    const before = await storedState(m, 's1')
    const controller = new AbortController()
    const handle = await m.persistence.open('s1', 'write', { signal: controller.signal })
    const reason = new Error('user cancelled')
    controller.abort(reason)
    await rejectsWith(handle.read(0, { signal: controller.signal }), reason)
    await rejectsWith(m.resume('s1', { signal: controller.signal }), reason)
    await handle.close()
    expect((await m.persistence.inspect('s1')).claim).toBe('none')
    await expectUnchanged(m, 's1', before)
    const { closers, detach } = await m.resume('s1')
    expect(closers).toHaveLength(3)
    detach()
  })

  it('P-068 resume leaves lineage (parentSession, seedLength, isSeeded, cwd, delegationDepth) and inheritedEventCount unchanged', async () => {
    const m = await h.mount()
    const parentHeader = header('p1', { cwd: '/home/user/lineage', origin: 'subagent', delegationDepth: 2, agentPreset: 'reviewer' })
    const parent = completeTurns(2)
    const fork = forkSeed(parentHeader as SessionHeader, parent, 8)
    const childHeader = header('k1', { ...fork.meta })
    await m.store('k1', fork.seed, { ...fork.meta })
    const { session, handle, detach } = await m.resume('k1')
    expect(handle.inheritedEventCount).toBe(9)
    expect(session.inheritedEventCount).toBe(9)
    await m.sessions.flush(session)
    const inspection = await m.persistence.inspect('k1')
    expectLossless(inspection.header, childHeader)
    expect(inspection.header).toMatchObject({ parentSession: 'p1', seedLength: 9, isSeeded: true, cwd: '/home/user/lineage', delegationDepth: 2, origin: 'subagent', agentPreset: 'reviewer' })
    expect(inspection.inheritedEventCount).toBe(9)
    detach()
    const again = await m.resume('k1')
    expect(again.handle.inheritedEventCount).toBe(9)
    expect(again.session.inheritedEventCount).toBe(9)
    again.detach()
  })

  itUnless(!options.capabilities.damage)('P-069 a seeded header without its end-seed{inherited} at seedLength is SESSION_CORRUPT; a fork of an empty parent loads', async () => {
    const m = await h.mount()
    const fork = forkSeed(header('p1') as SessionHeader, completeTurns(1), 5)
    await m.store('k1', fork.seed, { ...fork.meta })
    expect(fork.meta.seedLength).toBe(6)
    await h.damage.setHeaderField('k1', 'seedLength', 4)
    const before = await listed(m, 'k1')
    expect(before).toBeDefined()
    for (const attempt of [() => m.persistence.open('k1', 'write'), () => m.persistence.open('k1', 'read'), () => m.persistence.inspect('k1'), () => m.persistence.readFrom('k1', 0)]) {
      await rejects(attempt(), 'SESSION_CORRUPT')
    }
    expect(await listed(m, 'k1')).toEqual(before)
    await h.damage.setHeaderField('k1', 'seedLength', 40)
    await rejects(m.persistence.open('k1', 'write'), 'SESSION_CORRUPT')
    await h.damage.setHeaderField('k1', 'seedLength', 6)
    await (await m.persistence.open('k1', 'write')).close()
    const empty = [event('session/end-seed', 0, { inherited: true })]
    await m.store('k2', empty, { parentSession: 'p0', isSeeded: true, seedLength: 0 })
    const { handle, detach } = await m.resume('k2')
    expect(handle.inheritedEventCount).toBe(0)
    detach()
  })
}
