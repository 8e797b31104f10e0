/** `load` (spec 02 §4.6) and inspect's closers beside a live writer (§1.3): P-114 – P-117. */

import { expect, it } from 'vitest'
import { openTurnClosers, type SessionEvent } from '@logbook/session'
import { useHarness } from '../harness.ts'
import { completeTurn, openToolStep } from '../events.ts'
import { expectDeepFrozen, expectLossless, expectUnchanged, rejects, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { itUnless } from './it-unless.ts'

/** Register the `load` cases. */
export function loadCases(options: ConformanceOptions): void {
  const h = useHarness(options)
  const xp = options.capabilities.crossProcess

  it('P-114 load of a stored open turn nobody holds: the interrupted closers are appended durably, the log returned balanced, the id released', async () => {
    const m = await h.mount()
    const events = [...completeTurn(0, 1), ...openToolStep(6, 2, ['c1'])]
    await m.store('s1', events)
    const closers = openTurnClosers(events, { kind: 'interrupted' })
    const loaded = await m.persistence.load('s1')
    expectLossless(loaded.events, [...events, ...closers])
    expectLossless(loaded.appended, closers)
    expectDeepFrozen(loaded.events)
    expectLossless(await m.persistence.readFrom('s1', 0), [...events, ...closers])
    const inspection = await m.persistence.inspect('s1')
    expect([inspection.claim, inspection.openTurn]).toEqual(['none', null])
    const again = await m.persistence.load('s1')
    expect(again.appended).toEqual([])
    expectLossless(again.events, loaded.events)
    await rejects(m.persistence.load('nope'), 'SESSION_NOT_FOUND')
  })

  it('P-115 load of a session live here: SESSION_BUSY while a turn is open (nothing written); after turn/end it waits until the log is durable', async () => {
    const m = await h.mount()
    const { session, detach } = m.live('s1')
    session.append('turn/start', { turn: 1 })
    session.append('step/start', { turn: 1, step: 1 })
    const busy = await rejects(m.persistence.load('s1'), 'SESSION_BUSY')
    expect(busy.message).toBe('session "s1": turn 1 is open in this process; load it after that turn has ended')
    const inspection = await m.persistence.inspect('s1')
    expect([inspection.claim, inspection.openTurn, inspection.closers]).toEqual(['this-process', 1, []])
    session.append('step/end', { turn: 1, step: 1 })
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const loaded = await m.persistence.load('s1')
    // Nothing was flushed before: load itself waited for the whole log to become durable.
    expectLossless(await m.persistence.readFrom('s1', 0), session.events)
    expect(loaded.events.map((e: SessionEvent) => e.seq)).toEqual([0, 1, 2, 3])
    expect(loaded.appended).toEqual([])
    detach()
  })

  itUnless(!xp)('P-116 another live process holds the session: load → SESSION_BUSY, nothing written; inspect shows the open turn without closers', async () => {
    const m = await h.mount()
    const events = [...completeTurn(0, 1), ...openToolStep(6, 2, ['c1'])]
    await m.store('s1', events)
    const child = await h.worker()
    await child.request({ op: 'open-write', id: 's1' })
    const before = await storedState(m, 's1')
    const busy = await rejects(m.persistence.load('s1'), 'SESSION_BUSY')
    expect(busy.message).toBe('session "s1": another live writer holds it, so an open turn may be running; load it once that writer has released it')
    expect((busy.cause as { code?: string }).code).toBe('SESSION_LOCKED')
    const inspection = await m.persistence.inspect('s1')
    expect([inspection.claim, inspection.openTurn, inspection.closers]).toEqual(['other-process', 2, []])
    await expectUnchanged(m, 's1', before)
    await child.request({ op: 'close', id: 's1' })
    expect((await m.persistence.load('s1')).appended.map((e: SessionEvent) => e.type)).toEqual(['tool/result', 'step/end', 'turn/end'])
  })

  it('P-117 another coordinator of this process holds the session: load → SESSION_BUSY; an aborted signal rejects with its reason first', async () => {
    const writer = await h.mount()
    const reader = await h.mount()
    await writer.store('s1', completeTurn(0, 1))
    const handle = await writer.persistence.open('s1', 'write')
    await rejects(reader.persistence.load('s1'), 'SESSION_BUSY')
    await handle.close()
    const controller = new AbortController()
    const reason = new Error('no longer needed')
    controller.abort(reason)
    await expect(reader.persistence.load('s1', { signal: controller.signal })).rejects.toBe(reason)
    expect((await reader.persistence.load('s1')).events).toHaveLength(6)
  })
}
