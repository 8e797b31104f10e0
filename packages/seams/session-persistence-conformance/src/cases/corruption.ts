/**
 * Corruption (spec 02 §4.1) [dmg]: P-077, P-078, P-080, P-141–P-144 (P-079 is retired: there is no evidence rule any
 * more). Any complete record that fails its checksum or its shape is corruption wherever it is; a refusal never
 * writes.
 */

import { expect, it } from 'vitest'
import type { SessionPersistenceCorruptionError } from '@logbook/session-persistence'
import { useHarness, type Mount } from '../harness.ts'
import { completeTurn, completeTurns, event, streamingStep, userMessage } from '../events.ts'
import { listed, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { itUnless } from './it-unless.ts'

const WHOLE = Number.MAX_SAFE_INTEGER

/** Every read and write path refuses `id` with SESSION_CORRUPT and nothing changes; returns the open(write) error. */
async function refusedEverywhere(m: Mount, id: string): Promise<SessionPersistenceCorruptionError> {
  const before = await listed(m, id)
  const error = await rejects(m.persistence.open(id, 'write'), 'SESSION_CORRUPT') as SessionPersistenceCorruptionError
  await rejects(m.persistence.open(id, 'read'), 'SESSION_CORRUPT')
  await rejects(m.persistence.inspect(id), 'SESSION_CORRUPT')
  await rejects(m.persistence.readFrom(id, 0), 'SESSION_CORRUPT')
  await rejects(m.persistence.open(id, 'write'), 'SESSION_CORRUPT')
  await rejects(m.persistence.migrate(id), 'SESSION_CORRUPT')
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
    expect(error.seq).toBe(seq)
    if (h.caps.locate) expect(error.location).toEqual(expect.any(String))
  }

  it('P-077 garbage mid-log with a valid turn/end later is SESSION_CORRUPT naming line/seq; every path leaves it unchanged', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurns(2))
    const length = await h.damage.tearLastRecord('s1', WHOLE)
    await h.damage.corruptRecord('s1', 3, 'garbage')
    const error = await refusedEverywhere(m, 's1')
    expectNamed(error, 3, 3)
    expect(await h.damage.tearLastRecord('s1', WHOLE)).toBe(length)
  })

  it('P-078 a seq gap with a later turn/end, or a gapped record that is itself turn/end, is SESSION_CORRUPT', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurns(2))
    await h.damage.corruptRecord('s1', 3, 'seq-gap')
    expectNamed(await refusedEverywhere(m, 's1'), 3, 3)
    await m.store('s2', completeTurn(0, 1))
    await h.damage.corruptRecord('s2', 5, 'seq-gap')
    expectNamed(await refusedEverywhere(m, 's2'), 5, 5)
  })

  it('P-080 an unparsable header or a header id other than the requested one is SESSION_CORRUPT, never torn; other sessions are unaffected', async () => {
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

  it('P-141 a complete defect inside the last open turn, valid records after it and no turn/end, is SESSION_CORRUPT: nothing is cut', async () => {
    const m = await h.mount({ packChunks: false })
    await m.store('s1', [...completeTurn(0, 1), ...streamingStep(6, 2, 4)])
    const length = await h.damage.tearLastRecord('s1', WHOLE)
    await h.damage.corruptRecord('s1', 7, 'garbage')
    expectNamed(await refusedEverywhere(m, 's1'), 7, 7)
    expect(await h.damage.tearLastRecord('s1', WHOLE)).toBe(length)
  })

  it('P-142 one digit changed under a record\'s checksum (mid-log, or the last record) is SESSION_CORRUPT "checksum mismatch" on every path', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurns(2))
    await h.damage.corruptRecord('s1', 2, 'checksum')
    const mid = await refusedEverywhere(m, 's1')
    expectNamed(mid, 2, 2)
    expect(mid.detail).toMatch(/checksum mismatch \(stored [0-9a-f]{8}, computed [0-9a-f]{8}\)/)
    await m.store('s2', [...completeTurn(0, 1), event('turn/start', 6, { turn: 2 }), userMessage(7)])
    await h.damage.corruptRecord('s2', 7, 'checksum')
    const last = await refusedEverywhere(m, 's2')
    expectNamed(last, 7, 7)
    expect(last.detail).toMatch(/checksum mismatch/)
    await m.store('s3', completeTurn(0, 1))
    expect((await m.persistence.list()).items.map(i => i.id)).toContain('s3')
  })

  itUnless(h.caps.tornTail)('P-143 without torn tails, a damaged last record is SESSION_CORRUPT, never cut', async () => {
    const m = await h.mount()
    await m.store('s1', [...completeTurn(0, 1), event('turn/start', 6, { turn: 2 }), userMessage(7)])
    const length = await h.damage.tearLastRecord('s1', WHOLE)
    await h.damage.tearLastRecord('s1', Math.floor(length / 2))
    expectNamed(await refusedEverywhere(m, 's1'), 7, 7)
  })

  it('P-144 one digit of the header changed under its checksum is SESSION_CORRUPT on every path, and a listing problem', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    await m.store('s2', completeTurn(0, 1))
    await h.damage.flipHeaderDigit('s1')
    const error = await refusedEverywhere(m, 's1')
    expect(error.detail).toMatch(/^header checksum mismatch \(stored [0-9a-f]{8}, computed [0-9a-f]{8}\)$/)
    const page = await m.persistence.list()
    expect(page.items.map(i => i.id)).toEqual(['s2'])
    expect(page.problems.map(p => p.sessionId)).toEqual(['s1'])
  })
}
