/** `handle.read` (spec 02 §1.2): P-020–P-022, P-185. */

import { expect, it } from 'vitest'
import { useHarness } from '../harness.ts'
import { completeTurn, completeTurns, header } from '../events.ts'
import { expectLossless, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

/** Register the `read` cases. */
export function readCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-020 a read handle follows a writer: read(nextSeq) returns the new events and updates nextSeq and revision', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const reader = await m.persistence.open('s1', 'read')
    expect(reader.nextSeq).toBe(6)
    const revision = reader.revision
    const writer = await m.persistence.open('s1', 'write')
    const more = completeTurn(6, 2).slice(0, 3)
    const { revision: written } = await writer.append(more)
    expect(reader.nextSeq).toBe(6)
    expectLossless(await reader.read(reader.nextSeq), more)
    expect(reader.nextSeq).toBe(9)
    expect(reader.revision).toBe(written)
    expect(reader.revision).not.toBe(revision)
    expectLossless(await reader.read(0), [...completeTurn(0, 1), ...more])
    expect(await reader.read(9)).toEqual([])
    await writer.close()
    await reader.close()
  })

  it('P-021 a write handle first hands over the open-time events; a second read(0) is lossless-equal (new objects when detached)', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurns(2))
    const writer = await m.persistence.open('s1', 'write')
    const first = await writer.read(0)
    const second = await writer.read(0)
    expectLossless(first, completeTurns(2))
    expectLossless(second, first)
    if (writer.eventState === 'detached') first.forEach((e, i) => expect(e).not.toBe(second[i]))
    expectLossless(await writer.read(6), completeTurns(2).slice(6))
    await rejects(writer.read(-1), 'INVALID_ARGUMENT')
    await writer.close()
  })

  it('P-185 a read handle first reads what open read while the store is unchanged, and the store once another instance wrote', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurns(2))
    const reader = await m.persistence.open('s1', 'read')
    const revision = reader.revision
    expectLossless(await reader.read(6), completeTurns(2).slice(6))
    expect(reader.revision).toBe(revision)
    expect(reader.nextSeq).toBe(12)
    expectLossless(await reader.read(0), completeTurns(2))
    await reader.close()
    const late = await m.persistence.open('s1', 'read')
    const other = await h.mount()
    const writer = await other.persistence.open('s1', 'write')
    const more = completeTurn(12, 3)
    const { revision: written } = await writer.append(more)
    await writer.close()
    expectLossless(await late.read(0), [...completeTurns(2), ...more])
    expect(late.nextSeq).toBe(18)
    expect(late.revision).toBe(written)
    await late.close()
  })

  it('P-022 a handle read after the id was deleted or deleted and re-created is SESSION_CONFLICT', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const stale = await m.persistence.open('s1', 'read')
    const reader = await m.persistence.open('s1', 'read')
    const { revision } = await m.persistence.inspect('s1')
    await m.persistence.delete('s1', { confirm: 'delete-session', sessionId: 's1', revision })
    await rejects(stale.read(0), 'SESSION_CONFLICT')
    const created = await m.persistence.create(header('s1'))
    await created.append(completeTurn(0, 1))
    await created.close()
    await rejects(reader.read(0), 'SESSION_CONFLICT')
    await rejects(stale.read(0), 'SESSION_CONFLICT')
    await stale.close()
    await reader.close()
    const fresh = await m.persistence.open('s1', 'read')
    expectLossless(await fresh.read(0), completeTurn(0, 1))
    await fresh.close()
  })
}
