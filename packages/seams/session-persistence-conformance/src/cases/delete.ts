/** `delete` (spec 02 §1.1): P-029–P-032. */

import { expect, it } from 'vitest'
import { forkSeed, type SessionHeader } from '@logbook/session'
import { useHarness } from '../harness.ts'
import { completeTurn, completeTurns, header, T0 } from '../events.ts'
import { expectLossless, expectUnchanged, rejects, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

/** Register the `delete` cases. */
export function deleteCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-029 a confirmed delete removes log and checkpoint; re-creating gives a new incarnation and revision', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurns(2))
    const writer = await m.persistence.open('s1', 'write')
    await m.persistence.writeProjectionCheckpoint('s1', { sessionId: 's1', seq: 5, anchor: { time: T0 + 5, type: 'turn/end' }, rows: { n: 1 } })
    await writer.close()
    expect(await m.persistence.readProjectionCheckpoint('s1')).toBeDefined()
    const { revision } = await m.persistence.inspect('s1')
    const location = await m.persistence.locate('s1')
    const result = await m.persistence.delete('s1', { confirm: 'delete-session', sessionId: 's1', revision })
    expect(result.sessionId).toBe('s1')
    if (h.caps.locate) expect(result.location).toBe(location)
    await rejects(m.persistence.open('s1', 'read'), 'SESSION_NOT_FOUND')
    await rejects(m.persistence.inspect('s1'), 'SESSION_NOT_FOUND')
    expect((await m.persistence.list()).items).toEqual([])
    expect(await m.persistence.locate('s1')).toBeUndefined()
    await m.store('s1', completeTurns(2))
    const recreated = await m.persistence.inspect('s1')
    expect(recreated.revision).not.toBe(revision)
    expect(await m.persistence.readProjectionCheckpoint('s1')).toBeUndefined()
    expect(recreated.claim).toBe('none')
  })

  it('P-030 a wrong confirm, another sessionId or no revision is DELETE_NOT_CONFIRMED; a stale revision SESSION_CONFLICT; unchanged', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const stale = (await m.persistence.inspect('s1')).revision
    const writer = await m.persistence.open('s1', 'write')
    await writer.append(completeTurn(6, 2))
    await writer.close()
    const before = await storedState(m, 's1')
    const bad: unknown[] = [
      { confirm: 'delete', sessionId: 's1', revision: before.revision },
      { confirm: 'delete-session', sessionId: 's2', revision: before.revision },
      { confirm: 'delete-session', sessionId: 's1' },
      { confirm: 'delete-session', sessionId: 's1', revision: null },
      { confirm: 'delete-session', sessionId: 's1', revision: before.revision, extra: true },
      undefined,
    ]
    for (const confirmation of bad) {
      await rejects(m.persistence.delete('s1', confirmation as never), 'DELETE_NOT_CONFIRMED')
    }
    await rejects(m.persistence.delete('s1', { confirm: 'delete-session', sessionId: 's1', revision: stale }), 'SESSION_CONFLICT')
    await expectUnchanged(m, 's1', before)
    expect((await m.persistence.inspect('s1')).claim).toBe('none')
  })

  it('P-031 delete of an id held by a handle or a live session is SESSION_LOCKED; of a missing id SESSION_NOT_FOUND', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const { revision } = await m.persistence.inspect('s1')
    const confirmation = { confirm: 'delete-session', sessionId: 's1', revision } as const
    const handle = await m.persistence.open('s1', 'write')
    const locked = await rejects(m.persistence.delete('s1', confirmation), 'SESSION_LOCKED')
    expect(locked.details?.['holder']).toEqual({ scope: 'in-process', kind: 'handle' })
    await handle.close()
    const { session, detach } = m.live('s2')
    session.append('turn/start', { turn: 1 })
    await m.sessions.flush(session)
    const liveRevision = (await m.persistence.inspect('s2')).revision
    const liveLocked = await rejects(m.persistence.delete('s2', { confirm: 'delete-session', sessionId: 's2', revision: liveRevision }), 'SESSION_LOCKED')
    expect(liveLocked.details?.['holder']).toEqual({ scope: 'in-process', kind: 'live-session' })
    detach()
    await rejects(m.persistence.delete('missing', { confirm: 'delete-session', sessionId: 'missing', revision }), 'SESSION_NOT_FOUND')
    await m.persistence.delete('s1', confirmation)
    await rejects(m.persistence.open('s1', 'read'), 'SESSION_NOT_FOUND')
  })

  it('P-032 a fork child still opens after its parent was deleted', async () => {
    const m = await h.mount()
    const parentEvents = completeTurns(2)
    await m.store('p1', parentEvents)
    const fork = forkSeed(header('p1') as SessionHeader, parentEvents, 7)
    await m.store('k1', fork.seed, fork.meta as Record<string, unknown>)
    const { revision } = await m.persistence.inspect('p1')
    await m.persistence.delete('p1', { confirm: 'delete-session', sessionId: 'p1', revision })
    const child = await m.persistence.open('k1', 'write')
    expect(child.header.parentSession).toBe('p1')
    expect(child.inheritedEventCount).toBe(8)
    expectLossless(await child.read(0), fork.seed)
    await child.close()
    expect((await m.persistence.list({ parentSession: 'p1' })).items.map(i => i.id)).toEqual(['k1'])
  })
}
