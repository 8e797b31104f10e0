/**
 * Torn tails (spec 02 §4.1, §4.2, §4.5) [dmg] on backends whose records can be torn (`tornTail`): P-070–P-072, P-074
 * (P-073, P-076 are [J]; P-075 is retired: a complete defect is corruption, P-141).
 */

import { expect, it } from 'vitest'
import { openTurnClosers } from '@logbook/session'
import { useHarness } from '../harness.ts'
import { chunk, completeTurn, event, streamingStep, userMessage } from '../events.ts'
import { expectLossless, listed } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

const WHOLE = Number.MAX_SAFE_INTEGER

/** Register the `torn-tail` cases. */
export function tornTailCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-070 every keep in 0..len-1 of the last scalar record: open(write) cuts it, nextSeq is its seq, appending that seq works', async () => {
    const m = await h.mount()
    const events = [...completeTurn(0, 1), event('turn/start', 6, { turn: 2 }), userMessage(7)]
    await m.store('s1', events)
    const length = await h.damage.tearLastRecord('s1', WHOLE)
    expect(length).toBeGreaterThan(10)
    for (let keep = 0; keep < length; keep++) {
      await h.damage.tearLastRecord('s1', keep)
      const commits = m.committed.length
      const handle = await m.persistence.open('s1', 'write')
      expect(handle.nextSeq, `keep ${keep}`).toBe(7)
      if (keep > 0) {
        expect(handle.recovery?.tornTail, `keep ${keep}`).toMatchObject({ fromSeq: 7, droppedRecords: 1 })
        expect(m.committed.slice(commits)).toEqual([expect.objectContaining({ sessionId: 's1', source: 'repair', fromSeq: 7, toSeq: 7, events: [] })])
        expect(m.committed.at(-1)!.revision).toBe(handle.revision)
      }
      expectLossless(await handle.read(0), events.slice(0, 7))
      await handle.append([userMessage(7)])
      await handle.close()
    }
    const final = await m.persistence.inspect('s1')
    expect(final.tornTail).toBeNull()
    expectLossless(final.events, events)
    expect(await h.damage.tearLastRecord('s1', WHOLE)).toBe(length)
  })

  it('P-071 a torn packed last record of 50 chunks drops all 50 (droppedEvents 50)', async () => {
    const m = await h.mount({ packChunks: true })
    const events = streamingStep(0, 1, 50)
    await m.store('s1', events)
    const length = await h.damage.tearLastRecord('s1', WHOLE)
    await h.damage.tearLastRecord('s1', length - 1)
    const handle = await m.persistence.open('s1', 'write')
    expect(handle.nextSeq).toBe(3)
    expect(handle.recovery?.tornTail).toMatchObject({ fromSeq: 3, droppedRecords: 1, droppedEvents: 50 })
    expectLossless(await handle.read(0), events.slice(0, 3))
    await handle.append([chunk(3, 1, 1, 'again')])
    await handle.close()
  })

  it('P-072 a last turn/end lacking only its newline is torn and cut; the closers close the turn', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const length = await h.damage.tearLastRecord('s1', WHOLE)
    await h.damage.tearLastRecord('s1', length - 1)
    const inspection = await m.persistence.inspect('s1')
    expect(inspection.tornTail).toMatchObject({ fromSeq: 5 })
    expect(inspection.openTurn).toBe(1)
    const handle = await m.persistence.open('s1', 'write')
    expect(handle.nextSeq).toBe(5)
    expect(handle.recovery?.tornTail).toMatchObject({ fromSeq: 5, droppedRecords: 1 })
    const read = await handle.read(0)
    const closers = openTurnClosers(read, { kind: 'interrupted' })
    expect(closers.map(e => [e.type, e.seq])).toEqual([['turn/end', 5]])
    expect(closers[0]!.data).toEqual({ turn: 1, reason: { kind: 'interrupted' } })
    await handle.append(closers)
    await handle.close()
    expect((await m.persistence.inspect('s1')).openTurn).toBeNull()
  })

  it('P-074 open(read), inspect and readFrom on a torn log exclude the tail and change nothing', async () => {
    const m = await h.mount()
    const events = [...completeTurn(0, 1), event('turn/start', 6, { turn: 2 }), userMessage(7)]
    await m.store('s1', events)
    const length = await h.damage.tearLastRecord('s1', WHOLE)
    await h.damage.tearLastRecord('s1', Math.floor(length / 2))
    const before = await listed(m, 's1')
    expect(before, 'a torn session is still listed').toBeDefined()
    const inspection = await m.persistence.inspect('s1')
    expect(inspection.tornTail).toMatchObject({ fromSeq: 7, droppedRecords: 1 })
    expectLossless(inspection.events, events.slice(0, 7))
    const reader = await m.persistence.open('s1', 'read')
    expect(reader.recovery?.tornTail).toMatchObject({ fromSeq: 7 })
    expect(reader.nextSeq).toBe(7)
    expectLossless(await reader.read(0), events.slice(0, 7))
    expect(reader.revision).toBe(inspection.revision)
    await reader.close()
    expectLossless(await m.persistence.readFrom('s1', 0), events.slice(0, 7))
    expect(await m.persistence.readFrom('s1', 7)).toEqual([])
    expect((await m.persistence.inspect('s1')).revision).toBe(inspection.revision)
    expect(await listed(m, 's1')).toEqual(before)
    expect(await h.damage.tearLastRecord('s1', WHOLE)).toBe(Math.floor(length / 2))
    expect(m.committed.filter(c => c.source === 'repair')).toEqual([])
    const writer = await m.persistence.open('s1', 'write')
    expect(writer.revision).not.toBe(inspection.revision)
    await writer.close()
  })
}
