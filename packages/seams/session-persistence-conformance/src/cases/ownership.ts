/** Ownership in one process (spec 02 §3.1, §3.5): P-047–P-052 (P-053 is [unit]). */

import { expect, it } from 'vitest'
import type { SessionEvent, SessionHeader, SessionId } from '@logbook/session'
import { useHarness } from '../harness.ts'
import { completeTurn, completeTurns } from '../events.ts'
import { expectLossless, expectUnchanged, plain, rejects, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { openLiveTurn } from './write-behind.ts'

/** Register the `ownership` cases. */
export function ownershipCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-047 two open(write) in one tick: one wins, the other is SESSION_LOCKED in-process handle', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const [a, b] = await Promise.allSettled([m.persistence.open('s1', 'write'), m.persistence.open('s1', 'write')])
    expect(a.status).toBe('fulfilled')
    expect(b.status).toBe('rejected')
    const error = await rejects(Promise.reject((b as PromiseRejectedResult).reason), 'SESSION_LOCKED')
    expect(error.details?.['holder']).toEqual({ scope: 'in-process', kind: 'handle' })
    const winner = (a as PromiseFulfilledResult<Awaited<ReturnType<typeof m.persistence.open>>>).value
    await winner.append(completeTurn(6, 2))
    await winner.close()
    await (await m.persistence.open('s1', 'write')).close()
  })

  it('P-048 open(write) on an id bound to a live session is SESSION_LOCKED live-session', async () => {
    const m = await h.mount()
    const { session, detach } = m.live('s1')
    const locked = await rejects(m.persistence.open('s1', 'write'), 'SESSION_LOCKED')
    expect(locked.details?.['holder']).toEqual({ scope: 'in-process', kind: 'live-session' })
    openLiveTurn(session, 1)
    await m.sessions.flush(session)
    await rejects(m.persistence.open('s1', 'write'), 'SESSION_LOCKED')
    const reader = await m.persistence.open('s1', 'read')
    expect(reader.nextSeq).toBe(3)
    await reader.close()
    detach()
  })

  it('P-049 a write handle held, then sessions.create(id): its flush is SESSION_LOCKED and the handle keeps appending', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const handle = await m.persistence.open('s1', 'write')
    const { session, detach } = m.live('s1')
    openLiveTurn(session, 1)
    const error = await rejects(m.sessions.flush(session), 'SESSION_LOCKED')
    expect(error.details?.['holder']).toEqual({ scope: 'in-process', kind: 'handle' })
    await handle.append(completeTurn(6, 2))
    await rejects(m.sessions.flush(session), 'SESSION_LOCKED')
    await handle.append(completeTurn(12, 3))
    await handle.close()
    expectLossless(await m.persistence.readFrom('s1', 0), completeTurns(3))
    detach()
  })

  it('P-050 read paths beside a writer succeed and take no claim or lock', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    await m.store('s2', completeTurn(0, 1))
    const writer = await m.persistence.open('s1', 'write')
    await writer.append(completeTurn(6, 2).slice(0, 2))
    for (const id of ['s1', 's2']) {
      const reader = await m.persistence.open(id, 'read')
      await reader.read(0)
      await reader.close()
      await m.persistence.readFrom(id, 1)
      await m.persistence.inspect(id)
      await m.persistence.locate(id)
      await m.persistence.readProjectionCheckpoint(id)
    }
    expect((await m.persistence.list()).items.map(i => i.id).sort()).toEqual(['s1', 's2'])
    expect((await m.persistence.readFrom('s1', 0)).length).toBe(8)
    expect((await m.persistence.inspect('s2')).claim).toBe('none')
    expect((await m.persistence.inspect('s1')).claim).toBe('this-process')
    await writer.close()
    expect((await m.persistence.inspect('s1')).claim).toBe('none')
    // No read path left a claim behind: both ids open for write.
    for (const id of ['s1', 's2']) await (await m.persistence.open(id, 'write')).close()
  })

  it('P-051 handOff + close before publication releases the id; handOff + publish stores the end-seed at nextSeq and closes the handle', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const first = await m.persistence.open('s1', 'write')
    first.handOff()
    await rejects(first.read(0), 'SESSION_HANDLE_CLOSED')
    await first.close()
    const { session, handle, detach } = await m.resume('s1')
    expect(handle.nextSeq).toBe(6)
    await m.sessions.flush(session)
    const stored = await m.persistence.readFrom('s1', 0)
    expect(stored).toHaveLength(7)
    expect(stored[6]).toMatchObject({ type: 'session/end-seed', seq: 6, data: {} })
    await rejects(handle.read(0), 'SESSION_HANDLE_CLOSED')
    await rejects(handle.append([]), 'SESSION_HANDLE_CLOSED')
    await handle.close()
    await rejects(m.persistence.open('s1', 'write'), 'SESSION_LOCKED')
    detach()
  })

  it('P-052 handOff + a live session whose last stored event differs: flush is SESSION_CONFLICT', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const before = await storedState(m, 's1')
    const handle = await m.persistence.open('s1', 'write')
    const events = plain(await handle.read(0)) as SessionEvent[]
    const last = events[5] as unknown as { data: { reason: { kind: string } } }
    last.data.reason = { kind: 'max-steps' }
    const session = m.sessions.prepare('s1' as SessionId, {
      seed: events, meta: plain(handle.header) as SessionHeader, inheritedEventCount: 0, eventState: 'detached',
    })
    handle.handOff()
    const detach = m.sessions.enter(session)
    m.sessions.announce(session)
    await rejects(m.sessions.flush(session), 'SESSION_CONFLICT')
    await expectUnchanged(m, 's1', before)
    detach()
  })
}
