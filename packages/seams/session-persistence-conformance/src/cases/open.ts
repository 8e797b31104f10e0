/** `open`, ids, signals and handle states (spec 02 §1.1, §1.2): P-005–P-008. */

import { expect, it } from 'vitest'
import { useHarness } from '../harness.ts'
import { completeTurn, header } from '../events.ts'
import { expectDeepFrozen, expectUnfrozen, rejects, rejectsWith, throwsCode } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

/** Register the `open` cases. */
export function openCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-005 invalid ids are INVALID_ARGUMENT from every method', async () => {
    const m = await h.mount()
    const p = m.persistence
    const checkpoint = (id: string) => ({ sessionId: id, seq: 0, anchor: { time: 0, type: 'turn/start' }, rows: {} })
    for (const id of ['', '.x', 'a/b', 'a'.repeat(129)]) {
      await rejects(p.open(id, 'read'), 'INVALID_ARGUMENT')
      await rejects(p.open(id, 'write'), 'INVALID_ARGUMENT')
      await rejects(p.create(header(id)), 'INVALID_ARGUMENT')
      await rejects(p.inspect(id), 'INVALID_ARGUMENT')
      await rejects(p.readFrom(id, 0), 'INVALID_ARGUMENT')
      await rejects(p.delete(id, { confirm: 'delete-session', sessionId: id, revision: 'r' }), 'INVALID_ARGUMENT')
      await rejects(p.breakLock(id, { ownerId: null, confirm: 'break-lock' }), 'INVALID_ARGUMENT')
      await rejects(p.locate(id), 'INVALID_ARGUMENT')
      await rejects(p.readProjectionCheckpoint(id), 'INVALID_ARGUMENT')
      await rejects(p.writeProjectionCheckpoint(id, checkpoint(id)), 'INVALID_ARGUMENT')
    }
    // 128 characters is the longest valid id.
    await (await p.create(header('A'.repeat(128)))).close()
  })

  it('P-006 open(missing, write) is SESSION_NOT_FOUND twice and leaves no lock', async () => {
    const m = await h.mount()
    await rejects(m.persistence.open('missing', 'write'), 'SESSION_NOT_FOUND')
    await rejects(m.persistence.open('missing', 'write'), 'SESSION_NOT_FOUND')
    const handle = await m.persistence.create(header('missing'))
    await handle.append(completeTurn(0, 1))
    await handle.close()
    expect((await m.persistence.inspect('missing')).claim).toBe('none')
    if (h.caps.durableAcrossInstances) {
      const other = await h.mount()
      await (await other.persistence.open('missing', 'write')).close()
    }
  })

  it('P-007 a pre-aborted signal rejects every method with exactly its reason; handle states', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const controller = new AbortController()
    const reason = new Error('conformance abort')
    controller.abort(reason)
    const o = { signal: controller.signal }
    const p = m.persistence
    const rev = (await p.inspect('s1')).revision
    await rejectsWith(p.open('s1', 'read', o), reason)
    await rejectsWith(p.open('s1', 'write', o), reason)
    await rejectsWith(p.create(header('s2'), o), reason)
    await rejectsWith(p.list({}, o), reason)
    await rejectsWith(p.inspect('s1', o), reason)
    await rejectsWith(p.readFrom('s1', 0, o), reason)
    await rejectsWith(p.delete('s1', { confirm: 'delete-session', sessionId: 's1', revision: rev }, o), reason)
    await rejectsWith(p.breakLock('s1', { ownerId: null, confirm: 'break-lock' }, o), reason)
    await rejectsWith(p.locate('s1', o), reason)
    await rejectsWith(p.readProjectionCheckpoint('s1', o), reason)
    await rejectsWith(p.writeProjectionCheckpoint('s1', { sessionId: 's1', seq: 0, anchor: { time: 0, type: 'turn/start' }, rows: {} }, o), reason)
    // Invalid ids still lose to the aborted signal (it is checked first).
    await rejectsWith(p.open('a/b', 'read', o), reason)
    const writer = await p.open('s1', 'write')
    await rejectsWith(writer.read(0, o), reason)
    await rejectsWith(writer.append(completeTurn(6, 2), o), reason)
    expect(writer.nextSeq).toBe(6)
    await writer.close()
    const reader = await p.open('s1', 'read')
    await rejects(reader.append(completeTurn(6, 2)), 'HANDLE_READ_ONLY')
    throwsCode(() => reader.handOff(), 'HANDLE_READ_ONLY')
    await reader.close()
    await rejects(reader.read(0), 'SESSION_HANDLE_CLOSED')
    await reader.close()
    const again = await p.open('s1', 'write')
    await again.close()
    await rejects(again.read(0), 'SESSION_HANDLE_CLOSED')
    await rejects(again.append(completeTurn(6, 2)), 'SESSION_HANDLE_CLOSED')
    await again.close()
    expect((await p.inspect('s1')).revision).toBe(rev)
  })

  it('P-008 eventState: detached reads are unfrozen and new per call; shared-frozen reads are deep-frozen', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const reader = await m.persistence.open('s1', 'read')
    const first = await reader.read(0)
    const second = await reader.read(0)
    expect(first).toHaveLength(6)
    expect(['detached', 'shared-frozen']).toContain(reader.eventState)
    if (reader.eventState === 'detached') {
      for (const e of first) expectUnfrozen(e)
      first.forEach((e, i) => expect(e).not.toBe(second[i]))
      expect(second).toEqual(first)
    } else {
      for (const e of first) expectDeepFrozen(e)
    }
    const writer = await m.persistence.open('s1', 'write')
    expect(writer.eventState).toBe(reader.eventState)
    await writer.close()
    await reader.close()
  })
}
