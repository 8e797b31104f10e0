/** Corruption (spec 02 §4.1) [dmg]: P-077–P-080. A refusal never writes. */

import { expect, it } from 'vitest'
import type { SessionPersistenceCorruptionError } from '@logbook/session-persistence'
import { useHarness, type Mount } from '../harness.ts'
import { completeTurn, completeTurns, streamingStep } from '../events.ts'
import { listed, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

/** Every read and write path refuses `id` with SESSION_CORRUPT and nothing changes; returns the open(write) error. */
async function refusedEverywhere(m: Mount, id: string): Promise<SessionPersistenceCorruptionError> {
  const before = await listed(m, id)
  const error = await rejects(m.persistence.open(id, 'write'), 'SESSION_CORRUPT') as SessionPersistenceCorruptionError
  await rejects(m.persistence.open(id, 'read'), 'SESSION_CORRUPT')
  await rejects(m.persistence.inspect(id), 'SESSION_CORRUPT')
  await rejects(m.persistence.readFrom(id, 0), 'SESSION_CORRUPT')
  await rejects(m.persistence.open(id, 'write'), 'SESSION_CORRUPT')
  const { session, detach } = m.live(id)
  session.append('turn/start', { turn: 99 })
  let code: unknown
  await m.sessions.flush(session).catch((e: unknown) => { code = (e as { code?: unknown }).code })
  expect(['SESSION_CORRUPT', 'SESSION_ALREADY_EXISTS']).toContain(code)
  detach()
  expect(await listed(m, id)).toEqual(before)
  expect(m.committed.filter(c => c.sessionId === id && c.source !== 'handle')).toEqual([])
  expect(typeof error.detail).toBe('string')
  return error
}

/** Register the `corruption` cases. */
export function corruptionCases(options: ConformanceOptions): void {
  const h = useHarness(options)
  const kind = options.capabilities.damage

  /** The corruption error names record `index` (first seq `seq`): JSONL by 1-based line, SQLite by seq. */
  const expectNamed = (error: SessionPersistenceCorruptionError, index: number, seq: number): void => {
    if (kind === 'bytes') expect(error.line).toBe(index + 2)
    else expect(error.seq).toBe(seq)
  }

  it.skipIf(kind === null)('P-077 garbage mid-log with a valid turn/end later is SESSION_CORRUPT naming line/seq; every path leaves it unchanged', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurns(2))
    const length = await h.damage.tearLastRecord('s1', Number.MAX_SAFE_INTEGER)
    await h.damage.corruptRecord('s1', 3, 'garbage')
    const error = await refusedEverywhere(m, 's1')
    expectNamed(error, 3, 3)
    expect(await h.damage.tearLastRecord('s1', Number.MAX_SAFE_INTEGER)).toBe(length)
  })

  it.skipIf(kind === null)('P-078 a seq gap with a later turn/end, or a gapped record that is itself turn/end, is SESSION_CORRUPT', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurns(2))
    await h.damage.corruptRecord('s1', 3, 'seq-gap')
    expectNamed(await refusedEverywhere(m, 's1'), 3, 3)
    await m.store('s2', completeTurn(0, 1))
    await h.damage.corruptRecord('s2', 5, 'seq-gap')
    expectNamed(await refusedEverywhere(m, 's2'), 5, 5)
  })

  it.skipIf(kind === null)('P-079 a defect parsing as {type: turn/end, seq} after the first defect is evidence: SESSION_CORRUPT', async () => {
    const m = await h.mount()
    await m.store('s1', [...completeTurn(0, 1), ...streamingStep(6, 2, 2)])
    await h.damage.corruptRecord('s1', 7, 'garbage')
    expect((await m.persistence.inspect('s1')).tornTail).toMatchObject({ fromSeq: 7 })
    await h.damage.appendRawRecord('s1', '{"type":"turn/end","seq":99}')
    expectNamed(await refusedEverywhere(m, 's1'), 7, 7)
  })

  it.skipIf(kind === null)('P-080 an unparsable header or a header id other than the requested one is SESSION_CORRUPT, never torn; other sessions are unaffected', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    await m.store('s2', completeTurn(0, 1))
    await m.store('s3', completeTurn(0, 1))
    await h.damage.setHeaderField('s1', 'id', 'other')
    await refusedEverywhere(m, 's1')
    if (h.damage.corruptHeader) {
      await h.damage.corruptHeader('s3')
      await refusedEverywhere(m, 's3')
    }
    const page = await m.persistence.list()
    expect(page.items.map(i => i.id)).toContain('s2')
    const writer = await m.persistence.open('s2', 'write')
    await writer.append(completeTurn(6, 2))
    await writer.close()
    expect((await m.persistence.inspect('s2')).events).toHaveLength(12)
  })
}
