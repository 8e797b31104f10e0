/** Projection checkpoint storage (spec 02 §1.6): P-112. */

import { expect, it } from 'vitest'
import type { ProjectionCheckpoint } from '@logbook/session-persistence'
import { useHarness } from '../harness.ts'
import { completeTurn, completeTurns, streamingStep, T0 } from '../events.ts'
import { expectLossless, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

const checkpoint = (sessionId: string, seq: number, type: string, rows: Record<string, unknown> = { count: seq }): ProjectionCheckpoint =>
  ({ sessionId, seq, anchor: { time: T0 + seq, type }, rows }) as ProjectionCheckpoint

/** Register the `projection-checkpoints` cases. */
export function projectionCheckpointCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-112 checkpoints: ahead of the cursor CHECKPOINT_AHEAD, without a claim SESSION_LOCKED, replaced atomically, removed by delete and by a cut at or below their seq', async () => {
    const m = await h.mount({ packChunks: false })
    await m.store('s1', completeTurns(2))
    await rejects(m.persistence.writeProjectionCheckpoint('s1', checkpoint('s1', 5, 'turn/end')), 'SESSION_LOCKED')
    expect(await m.persistence.readProjectionCheckpoint('s1')).toBeUndefined()
    const writer = await m.persistence.open('s1', 'write')
    await rejects(m.persistence.writeProjectionCheckpoint('s1', checkpoint('s1', 12, 'turn/end')), 'CHECKPOINT_AHEAD')
    await rejects(m.persistence.writeProjectionCheckpoint('s1', checkpoint('other', 5, 'turn/end')), 'INVALID_ARGUMENT')
    await rejects(m.persistence.writeProjectionCheckpoint('s1', checkpoint('s1', 5, 'turn/end', { bad: Number.NaN })), 'INVALID_ARGUMENT')
    expect(await m.persistence.readProjectionCheckpoint('s1')).toBeUndefined()
    await m.persistence.writeProjectionCheckpoint('s1', checkpoint('s1', 5, 'turn/end', { title: 'first', n: [1, 2] }))
    expectLossless(await m.persistence.readProjectionCheckpoint('s1'), checkpoint('s1', 5, 'turn/end', { title: 'first', n: [1, 2] }))
    await m.persistence.writeProjectionCheckpoint('s1', checkpoint('s1', 11, 'turn/end', { title: 'second' }))
    expectLossless(await m.persistence.readProjectionCheckpoint('s1'), checkpoint('s1', 11, 'turn/end', { title: 'second' }))
    await writer.append(completeTurn(12, 3))
    await writer.close()
    await rejects(m.persistence.writeProjectionCheckpoint('s1', checkpoint('s1', 12, 'turn/start')), 'SESSION_LOCKED')
    expectLossless(await m.persistence.readProjectionCheckpoint('s1'), checkpoint('s1', 11, 'turn/end', { title: 'second' }))
    // A live session's claim also allows checkpoints.
    const { session, detach } = m.live('s2')
    session.append('turn/start', { turn: 1 })
    await m.sessions.flush(session)
    await m.persistence.writeProjectionCheckpoint('s2', { sessionId: 's2', seq: 0, anchor: { time: session.events[0]!.time, type: 'turn/start' }, rows: {} })
    expect(await m.persistence.readProjectionCheckpoint('s2')).toBeDefined()
    detach()
    const { revision } = await m.persistence.inspect('s1')
    await m.persistence.delete('s1', { confirm: 'delete-session', sessionId: 's1', revision })
    await m.store('s1', completeTurns(3))
    expect(await m.persistence.readProjectionCheckpoint('s1')).toBeUndefined()
  })

  it('P-112 a cut at or below the checkpoint seq removes it; a cut above keeps it (torn tails, and repair cuts)', async () => {
    const m = await h.mount({ packChunks: false })
    const events = [...completeTurn(0, 1), ...streamingStep(6, 2, 6)]
    await m.store('s1', events)
    const writer = await m.persistence.open('s1', 'write')
    await m.persistence.writeProjectionCheckpoint('s1', checkpoint('s1', 12, 'assistant/chunk'))
    await writer.close()
    if (h.caps.damage !== null && h.caps.tornTail) {
      const length = await h.damage.tearLastRecord('s1', Number.MAX_SAFE_INTEGER)
      await h.damage.tearLastRecord('s1', Math.floor(length / 2))
    } else {
      await m.persistence.repair('s1', { cutAt: 14, confirm: 'cut-records' })
    }
    const above = await m.persistence.open('s1', 'write')
    expect(above.nextSeq).toBe(14)
    await above.close()
    expectLossless(await m.persistence.readProjectionCheckpoint('s1'), checkpoint('s1', 12, 'assistant/chunk'))
    await m.persistence.repair('s1', { cutAt: 11, confirm: 'cut-records' })
    const below = await m.persistence.open('s1', 'write')
    expect(below.nextSeq).toBe(11)
    expect(await m.persistence.readProjectionCheckpoint('s1')).toBeUndefined()
    await below.append(events.slice(11))
    await below.close()
    expect(await m.persistence.readProjectionCheckpoint('s1')).toBeUndefined()
  })
}
