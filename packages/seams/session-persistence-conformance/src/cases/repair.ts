/**
 * Repair and migrate (spec 02 §4.7): P-145 (a refused log made to open again: plan, confirmation, backup, cut, an
 * earlier cut point) and P-146 (migrating a session already in the current store format writes nothing).
 */

import { existsSync } from 'node:fs'
import { expect, it } from 'vitest'
import { useHarness } from '../harness.ts'
import { chunkRun, completeTurn, completeTurns, event } from '../events.ts'
import { expectLossless, listed, rejects, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { itUnless } from './it-unless.ts'

/** Register the `repair` cases. */
export function repairCases(options: ConformanceOptions): void {
  const h = useHarness(options)
  const noDamage = options.capabilities.damage === null

  itUnless(noDamage)('P-145 repair names every record from the first defect and its events, cuts only when confirmed, keeps a backup, and the log opens again', async () => {
    const m = await h.mount({ packChunks: true })
    const events = [...completeTurns(2), event('turn/start', 12, { turn: 3 }), ...chunkRun(13, 5, 3, 1)]
    await m.store('s1', events)
    await h.damage.corruptRecord('s1', 4, 'garbage')
    const before = await listed(m, 's1')
    const plan = await m.persistence.repair('s1')
    expect(plan).toMatchObject({ sessionId: 's1', cutAt: 4, cut: false })
    expect(plan.defect).toMatchObject({ seq: 4, detail: expect.stringMatching(/not valid JSON/) })
    const [garbage, ...rest] = plan.records
    expect(garbage).toMatchObject({ problem: expect.stringMatching(/not valid JSON/) })
    // A line store cannot know what a garbage line held; row stores count it from their seq columns.
    expect([null, 1]).toContain(garbage!.events)
    expect(rest.map(r => [r.seq, r.events])).toEqual([...[5, 6, 7, 8, 9, 10, 11, 12].map(s => [s, 1]), [13, 5]])
    expect(plan.events).toBe(13 + (garbage!.events ?? 0))
    expect(plan.undecodable).toBe(garbage!.events === null ? 1 : 0)
    expect(await listed(m, 's1')).toEqual(before)
    expect(m.committed.filter(c => c.source === 'repair')).toEqual([])
    await rejects(m.persistence.repair('s1', { cutAt: 5 }), 'INVALID_ARGUMENT')
    await rejects(m.persistence.repair('s1', { confirm: 'yes' as never }), 'INVALID_ARGUMENT')

    const done = await m.persistence.repair('s1', { confirm: 'cut-records' })
    expect(done).toMatchObject({ cutAt: 4, cut: true, events: plan.events, undecodable: plan.undecodable })
    if (h.caps.locate) expect(existsSync(done.backup!), 'the backup file exists').toBe(true)
    expect(m.committed.filter(c => c.source === 'repair')).toEqual([expect.objectContaining({ sessionId: 's1', fromSeq: 4, toSeq: 4, revision: done.revision })])
    const writer = await m.persistence.open('s1', 'write')
    expect(writer.nextSeq).toBe(4)
    expectLossless(await writer.read(0), events.slice(0, 4))
    await writer.close()
    const clean = await m.persistence.repair('s1', { confirm: 'cut-records' })
    expect(clean).toMatchObject({ defect: null, cutAt: null, records: [], cut: false })
  })

  it('P-145 repair at an earlier record boundary cuts there; inside a packed record or past the end it is refused; a held id is SESSION_LOCKED', async () => {
    const m = await h.mount({ packChunks: true })
    const events = [...completeTurn(0, 1), event('turn/start', 6, { turn: 2 }), ...chunkRun(7, 5, 2, 1)]
    await m.store('s1', events)
    const inside = await rejects(m.persistence.repair('s1', { cutAt: 9 }), 'INVALID_ARGUMENT')
    expect(inside.message).toContain('inside the record holding seqs 7–11; cut at 7')
    await rejects(m.persistence.repair('s1', { cutAt: 13 }), 'INVALID_ARGUMENT')
    const held = await m.persistence.open('s1', 'write')
    await rejects(m.persistence.repair('s1', { cutAt: 7 }), 'SESSION_LOCKED')
    await held.close()
    const before = await storedState(m, 's1')
    const plan = await m.persistence.repair('s1', { cutAt: 6 })
    expect(plan).toMatchObject({ defect: null, cutAt: 6, events: 6, undecodable: 0, cut: false })
    expect(plan.records.map(r => [r.seq, r.events])).toEqual([[6, 1], [7, 5]])
    expect((await storedState(m, 's1')).revision).toBe(before.revision)
    await m.persistence.repair('s1', { cutAt: 6, confirm: 'cut-records' })
    expectLossless(await m.persistence.readFrom('s1', 0), events.slice(0, 6))
    expect((await m.persistence.inspect('s1')).openTurn).toBeNull()
  })

  it('P-146 migrating a session already in the current store format writes nothing', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const before = await storedState(m, 's1')
    expect((await m.persistence.inspect('s1')).checksums).toBe(true)
    expect(await m.persistence.migrate('s1')).toEqual({ sessionId: 's1', migrated: false, sessions: [] })
    expect(await storedState(m, 's1')).toEqual(before)
    await rejects(m.persistence.migrate('nope'), 'SESSION_NOT_FOUND')
  })
}
