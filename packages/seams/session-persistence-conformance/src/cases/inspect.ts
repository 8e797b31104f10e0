/** `inspect` (spec 02 §1.3): P-018, P-019 (in-process part; the [xp] part is in `cross-process`). */

import { expect, it } from 'vitest'
import { TOOL_OUTCOME_UNKNOWN, openTurnClosers } from '@logbook/session'
import { useHarness } from '../harness.ts'
import { completeTurn, openToolStep } from '../events.ts'
import { expectDeepFrozen, expectLossless, expectUnchanged, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

/** Register the `inspect` cases. */
export function inspectCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-018 an open step with an unanswered tool/call: inspect shows openTurn and the interrupted closers; nothing changes', async () => {
    const m = await h.mount()
    const events = [...completeTurn(0, 1), ...openToolStep(6, 2, ['c1'])]
    await m.store('s1', events)
    const before = await storedState(m, 's1')
    const inspection = await m.persistence.inspect('s1')
    expect(inspection.openTurn).toBe(2)
    expect(inspection.tornTail).toBeNull()
    expect(inspection.inheritedEventCount).toBe(0)
    expectLossless(inspection.events, events)
    expectDeepFrozen(inspection.events)
    expect(inspection.closers.map(e => e.type)).toEqual(['tool/result', 'step/end', 'turn/end'])
    const result = inspection.closers[0]!.data as { message: { source: { callId: string } }; error: { code: string } }
    expect(result.message.source.callId).toBe('c1')
    expect(result.error.code).toBe(TOOL_OUTCOME_UNKNOWN)
    expect(inspection.closers[2]!.data).toEqual({ turn: 2, reason: { kind: 'interrupted' } })
    expectLossless(inspection.closers, openTurnClosers(events, { kind: 'interrupted' }))
    expect(inspection.closers[0]!.seq).toBe(events.length)
    await expectUnchanged(m, 's1', before)
    const balanced = await m.persistence.inspect('s1')
    expect(balanced.revision).toBe(inspection.revision)
  })

  it('P-019 inspect.claim is none, then this-process while a write handle or a live session holds the id', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    expect((await m.persistence.inspect('s1')).claim).toBe('none')
    const handle = await m.persistence.open('s1', 'write')
    expect((await m.persistence.inspect('s1')).claim).toBe('this-process')
    await handle.close()
    expect((await m.persistence.inspect('s1')).claim).toBe('none')
    const { session, detach } = m.live('s2')
    session.append('turn/start', { turn: 1 })
    await m.sessions.flush(session)
    expect((await m.persistence.inspect('s2')).claim).toBe('this-process')
    detach()
  })
}
