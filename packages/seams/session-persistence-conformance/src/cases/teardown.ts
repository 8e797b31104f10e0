/** Teardown and the seam's invariant companion (spec 02 §2.5, §8): P-110, P-113 (P-111 is [unit]). */

import { expect, it } from 'vitest'
import { useHarness } from '../harness.ts'
import { completeTurn } from '../events.ts'
import { expectLossless, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { closeLiveTurn, openLiveTurn } from './write-behind.ts'

/** Register the `teardown` cases. */
export function teardownCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-110 disposal flushes pending events for a new instance and releases a handle left open (PERSISTENCE_DISPOSED)', async () => {
    const m1 = await h.mount({ writeBatchMaxDelayMs: 60_000 })
    await m1.store('s2', completeTurn(0, 1))
    const { session } = m1.live('s1')
    openLiveTurn(session, 1)
    closeLiveTurn(session, 1, 5)
    const service = m1.persistence
    const handle = await service.open('s2', 'write')
    const reader = await service.open('s2', 'read')
    expect(m1.committed.filter(c => c.sessionId === 's1')).toEqual([])
    await m1.unload()
    await rejects(handle.read(0), 'PERSISTENCE_DISPOSED')
    await rejects(handle.append(completeTurn(6, 2)), 'PERSISTENCE_DISPOSED')
    await rejects(reader.read(0), 'PERSISTENCE_DISPOSED')
    await rejects(service.list(), 'PERSISTENCE_DISPOSED')
    await rejects(service.open('s2', 'read'), 'PERSISTENCE_DISPOSED')
    await rejects(service.inspect('s2'), 'PERSISTENCE_DISPOSED')
    const m2 = h.caps.durableAcrossInstances ? await h.mount() : m1
    if (m2 === m1) await m1.load()
    expectLossless(await m2.persistence.readFrom('s1', 0), [...session.events])
    const writer = await m2.persistence.open('s2', 'write')
    await writer.append(completeTurn(6, 2))
    await writer.close()
  })

  it('P-113 the seam companion reports a committed seq gap and a cursor beyond the live log as invariant violations', async () => {
    const m = await h.mount()
    const companion = await import('@logbook/session-persistence/invariant')
    await m.app.plugin(companion)
    const { session, detach } = m.live('s1')
    openLiveTurn(session, 1)
    await m.sessions.flush(session)
    const last = m.committed.at(-1)!
    expect(last.toSeq).toBe(3)
    const errors = (): string[] => m.logs.filter(l => l.type === 'error').map(l => `${l.name} ${l.args.map(a => String(a instanceof Error ? a.message : a)).join(' ')}`)
    expect(errors().filter(e => e.includes('invariant'))).toEqual([])
    session.append('step/end', { turn: 1, step: 1 })
    m.app.emit('persistence/committed', { ...last, fromSeq: 5, toSeq: 6, events: [] })
    expect(errors().some(e => e.includes('session-persistence-invariant'))).toBe(true)
    const count = errors().length
    m.app.emit('persistence/committed', { ...last, fromSeq: 6, toSeq: 40, events: [] })
    expect(errors().length).toBeGreaterThan(count)
    detach()
  })
}
