/** `create` (spec 02 §1.1): P-001–P-004. */

import { expect, it } from 'vitest'
import { useHarness } from '../harness.ts'
import { completeTurn, completeTurns, event, header } from '../events.ts'
import { expectLossless, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { itUnless } from './it-unless.ts'

/** Register the `create` cases. */
export function createCases(options: ConformanceOptions): void {
  const h = useHarness(options)
  const durable = options.capabilities.durableAcrossInstances

  it('P-001 create gives nextSeq 0 and revision null; closing before any append leaves no trace', async () => {
    const m = await h.mount()
    const handle = await m.persistence.create(header('s1'))
    expect(handle.id).toBe('s1')
    expect(handle.mode).toBe('write')
    expect(handle.nextSeq).toBe(0)
    expect(handle.revision).toBeNull()
    expect(handle.inheritedEventCount).toBe(0)
    expect(handle.recovery).toBeNull()
    expectLossless(handle.header, header('s1'))
    await handle.close()
    expect(await m.persistence.list()).toEqual({ items: [], nextCursor: null, problems: [] })
    await rejects(m.persistence.open('s1', 'read'), 'SESSION_NOT_FOUND')
    await rejects(m.persistence.readFrom('s1', 0), 'SESSION_NOT_FOUND')
    expect(await m.persistence.locate('s1')).toBeUndefined()
    // Nothing was materialised, so the id is creatable again.
    await (await m.persistence.create(header('s1'))).close()
  })

  itUnless(!durable)('P-002 a created and appended turn reads back lossless-equal in a new instance', async () => {
    const m1 = await h.mount()
    const handle = await m1.persistence.create(header('s1', { agentPreset: 'coder' }))
    const result = await handle.append(completeTurn(0, 1))
    expect(result.nextSeq).toBe(6)
    expect(handle.nextSeq).toBe(6)
    expect(typeof result.revision).toBe('string')
    expect(handle.revision).toBe(result.revision)
    await handle.close()
    await m1.dispose()
    const m2 = await h.mount()
    const read = await m2.persistence.open('s1', 'read')
    expect(read.mode).toBe('read')
    expectLossless(read.header, header('s1', { agentPreset: 'coder' }))
    expectLossless(await read.read(0), completeTurn(0, 1))
    expect(read.nextSeq).toBe(6)
    expect(read.revision).toBe(result.revision)
    await read.close()
  })

  it('P-003 a header with a wrong version, a type key or a fractional createdAt is INVALID_ARGUMENT; the id stays creatable', async () => {
    const m = await h.mount()
    for (const bad of [
      header('s1', { version: 3 }),
      header('s1', { version: 0 }),
      header('s1', { type: 'session' }),
      header('s1', { createdAt: 1.5 }),
    ]) {
      await rejects(m.persistence.create(bad), 'INVALID_ARGUMENT')
    }
    // A seeded header's first append must hold the lineage marker at seedLength.
    const seeded = await m.persistence.create(header('s2', { parentSession: 'p', isSeeded: true, seedLength: 6 }))
    await rejects(seeded.append(completeTurns(2)), 'INVALID_ARGUMENT')
    expect(seeded.nextSeq).toBe(0)
    await seeded.close()
    await rejects(m.persistence.open('s2', 'read'), 'SESSION_NOT_FOUND')
    const handle = await m.persistence.create(header('s1'))
    await handle.append([event('turn/start', 0, { turn: 1 })])
    await handle.close()
    expect((await m.persistence.list()).items.map(i => i.id)).toEqual(['s1'])
  })

  it('P-004 create over a stored id is SESSION_ALREADY_EXISTS; over an id held by another create handle SESSION_LOCKED', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    await rejects(m.persistence.create(header('s1')), 'SESSION_ALREADY_EXISTS')
    const held = await m.persistence.create(header('s2'))
    const locked = await rejects(m.persistence.create(header('s2')), 'SESSION_LOCKED')
    expect(locked.details?.['holder']).toEqual({ scope: 'in-process', kind: 'handle' })
    await held.append(completeTurn(0, 1))
    await held.close()
    await rejects(m.persistence.create(header('s2')), 'SESSION_ALREADY_EXISTS')
    // The failed creates released what they took: the stored ids open for write.
    for (const id of ['s1', 's2']) await (await m.persistence.open(id, 'write')).close()
  })
}
