/** Large sessions (spec 02 §1.4 codec limits): P-087, P-088 (P-089 is [S]). */

import { expect, it } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import { encodeBatch, MAX_ROW_BYTES, MAX_ROW_MEMBERS } from '@logbook/session-persistence'
import { useHarness } from '../harness.ts'
import { chunkRun, event, header, streamingStep, userMessage } from '../events.ts'
import { expectLossless } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

/** Events of the P-087 session: `LOGBOOK_CONFORMANCE_LARGE_EVENTS` (default 250 000), 96 % chunks. */
function largeEventCount(): number {
  const raw = process.env['LOGBOOK_CONFORMANCE_LARGE_EVENTS']
  const n = raw === undefined || raw === '' ? 250_000 : Number(raw)
  if (!Number.isSafeInteger(n) || n < 250) throw new TypeError(`LOGBOOK_CONFORMANCE_LARGE_EVENTS must be an integer ≥ 250, got ${raw}`)
  return n
}

/** Compare two long logs event by event through their JSON text (fast), failing with a readable diff on the first mismatch. */
function expectSameLog(actual: readonly SessionEvent[], expected: readonly SessionEvent[]): void {
  expect(actual.length).toBe(expected.length)
  for (let i = 0; i < expected.length; i++) {
    if (JSON.stringify(actual[i]) !== JSON.stringify(expected[i])) expectLossless(actual[i], expected[i], `event ${i}`)
  }
}

/** Register the `large` cases. */
export function largeCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-087 a 250k-event live session written in 512-event batches: one commit per batch; it reads back identical; an 8 MiB event round-trips', async () => {
    const total = largeEventCount()
    const m = await h.mount({ writeBatchMaxDelayMs: 60_000 })
    const { session, detach } = m.live('big')
    const append = session.append as (type: string, data: unknown, opts?: unknown) => SessionEvent
    let turn = 0
    let pending = 0
    let batches = 0
    const flushIfFull = async (): Promise<void> => {
      if (++pending < 512) return
      pending = 0
      batches++
      await m.sessions.flush(session)
    }
    while (session.seq < total) {
      turn++
      const steps: [string, unknown, unknown?][] = [
        ['turn/start', { turn }],
        ['user/message', { id: `u-${turn}`, role: 'user', content: [{ type: 'text', text: `q${turn}` }], source: { kind: 'user' } }, { surfaceOp: 'append' }],
        ['step/start', { turn, step: 1 }],
      ]
      for (const [type, data, opts] of steps) {
        if (session.seq >= total) break
        append.call(session, type, data, opts)
        await flushIfFull()
      }
      for (let i = 0; i < 240 && session.seq < total; i++) {
        append.call(session, 'assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: `t${i} ` } })
        await flushIfFull()
      }
      const closing: [string, unknown, unknown?][] = [
        ['assistant/message', { turn, step: 1, message: { id: `a-${turn}`, role: 'assistant', content: [{ type: 'text', text: 'ok' }], source: { kind: 'model', provider: 'scripted', model: 'm1' } } }, { surfaceOp: 'append' }],
        ['step/end', { turn, step: 1 }],
        ['step/start', { turn, step: 2 }],
        ['assistant/message', { turn, step: 2, message: { id: `b-${turn}`, role: 'assistant', content: [], source: { kind: 'model', provider: 'scripted', model: 'm1' } } }, { surfaceOp: 'append' }],
        ['step/end', { turn, step: 2 }],
        ['turn/end', { turn, reason: { kind: 'completed' } }],
        ['request/context', { provider: 'scripted', model: 'm1' }],
      ]
      for (const [type, data, opts] of closing) {
        if (session.seq >= total) break
        append.call(session, type, data, opts)
        await flushIfFull()
      }
    }
    if (pending > 0) {
      batches++
      await m.sessions.flush(session)
    }
    const commits = m.committed.filter(c => c.sessionId === 'big')
    expect(commits).toHaveLength(batches)
    expect(commits.at(-1)!.toSeq).toBe(total)
    const chunks = session.events.filter(e => e.type === 'assistant/chunk').length
    expect(chunks / total).toBeGreaterThan(0.9)
    const huge = 'x'.repeat(8 * 1024 * 1024 - 7) + 'ü€𝄞'
    append.call(session, 'user/message', { id: 'huge', role: 'user', content: [{ type: 'text', text: huge }], source: { kind: 'user' } }, { surfaceOp: 'append' })
    await m.sessions.flush(session)
    const live = [...session.events]
    detach()
    let reader = m
    if (h.caps.durableAcrossInstances) {
      await m.dispose()
      reader = await h.mount()
    }
    const handle = await reader.persistence.open('big', 'read')
    const stored = await handle.read(0)
    await handle.close()
    expectSameLog(stored, live)
    const last = stored.at(-1)!.data as { content: { text: string }[] }
    expect(last.content[0]!.text).toBe(huge)
  })

  it('P-088 a 2,500-chunk run is stored in records of at most 1024 members and 1 MiB; readFrom is exact at every record boundary ±1; small batches only append', async () => {
    const m = await h.mount({ packChunks: true })
    const oversized = 'o'.repeat(MAX_ROW_BYTES + 10)
    const events = [
      ...streamingStep(0, 1, 0),
      ...chunkRun(3, 2500, 1, 1, i => (i === 1700 ? oversized : i >= 1500 ? `${i}:`.padEnd(2000, 'm') : `s${i}`)),
      event('step/end', 2503, { turn: 1, step: 1 }),
    ]
    const records = encodeBatch(events, true)
    for (const r of records) {
      expect(r.lastSeq - r.seq + 1).toBeLessThanOrEqual(MAX_ROW_MEMBERS)
      if (r.kind !== 'event') expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(MAX_ROW_BYTES)
    }
    expect(records.find(r => r.seq === 1703)).toMatchObject({ kind: 'event', lastSeq: 1703 })
    expect(records.filter(r => r.kind !== 'event').length).toBeGreaterThanOrEqual(4)
    const handle = await m.persistence.create(header('s1'))
    await handle.append(events)
    await handle.close()
    const seqs = new Set<number>()
    for (const r of records) for (const s of [r.seq - 1, r.seq, r.seq + 1, r.lastSeq, r.lastSeq + 1]) if (s >= 0) seqs.add(s)
    for (const s of [...seqs].sort((a, b) => a - b)) {
      const got = await m.persistence.readFrom('s1', s)
      expect(got.length, `readFrom ${s}`).toBe(Math.max(0, events.length - s))
      if (got.length > 0) {
        expect(got[0]!.seq).toBe(s)
        expectLossless(got.slice(0, 3), events.slice(s, s + 3), `readFrom ${s}`)
      }
    }
    expectLossless(await m.persistence.readFrom('s1', 0), events)
    // 1,000 chunks appended 40 at a time: each batch adds exactly one record and never rewrites earlier ones.
    const writer = await m.persistence.create(header('s2'))
    await writer.append([event('turn/start', 0, { turn: 1 }), userMessage(1), event('step/start', 2, { turn: 1, step: 1 })])
    let previous = m.committed.at(-1)!.physicalLength
    for (let b = 0; b < 25; b++) {
      await writer.append(chunkRun(3 + 40 * b, 40, 1, 1, i => `b${b}c${i} `))
      const length = m.committed.at(-1)!.physicalLength
      const grown = h.caps.damage === 'bytes' ? await h.damage.tearLastRecord('s2', Number.MAX_SAFE_INTEGER) : 1
      expect(length - previous).toBe(grown)
      previous = length
    }
    await writer.close()
    expect(await m.persistence.readFrom('s2', 3)).toHaveLength(1000)
  })
}
