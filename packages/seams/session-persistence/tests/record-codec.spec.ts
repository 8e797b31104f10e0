import { decodeStorageRecord, type SessionEvent } from '@logbook/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  checksumProblem,
  decodeRecordText,
  encodeBatch,
  encodeEventText,
  MAX_ROW_BYTES,
  MAX_ROW_MEMBERS,
  recordChecksum,
} from '../src/record-codec.ts'
import { turn } from './helpers.ts'

const chunkEvent = (seq: number, text: string, time = 1000 + seq): SessionEvent =>
  ({ type: 'assistant/chunk', seq, time, data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text } } }) as SessionEvent

const run = (from: number, count: number, text: (i: number) => string = i => `w${i}`): SessionEvent[] =>
  Array.from({ length: count }, (_, i) => chunkEvent(from + i, text(i)))

const decodeAll = (texts: readonly string[]): SessionEvent[] =>
  texts.flatMap(text => {
    const result = decodeRecordText(text)
    if (!result.ok) throw new Error(result.reason)
    return [...result.events]
  })

const members = (text: string): number => {
  const value = JSON.parse(text) as { seq0?: number; data: { texts?: string[] } }
  return value.seq0 === undefined ? 1 : value.data.texts!.length
}

describe('record codec (02 §1.4)', () => {
  it('writes a scalar record with keys in envelope order whatever the object key order', () => {
    const event = {
      sourceEventSeqs: [0], data: { id: 'm', role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } },
      surfaceOp: 'append', time: 5, seq: 1, type: 'user/message',
    } as unknown as SessionEvent
    expect(encodeEventText(event)).toBe(
      '{"type":"user/message","seq":1,"time":5,"data":{"id":"m","role":"user","content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}},"surfaceOp":"append","sourceEventSeqs":[0]}',
    )
    const ignorable = { data: {}, ignorable: true, seq: 2, time: 1, type: 'plugin/x' } as unknown as SessionEvent
    expect(encodeEventText(ignorable)).toBe('{"type":"plugin/x","seq":2,"time":1,"data":{},"ignorable":true}')
  })

  it('packs a chunk run into one record and decodes it back to the same events', () => {
    const events = [{ type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } } as SessionEvent, ...run(1, 10)]
    const records = encodeBatch(events, true)
    expect(records.map(r => [r.kind, r.seq, r.lastSeq, r.type])).toEqual([
      ['event', 0, 0, 'turn/start'],
      ['text-chunks', 1, 10, 'assistant/chunk'],
    ])
    expect(records[1]!.time).toBe(1001)
    expect(records[1]!.lastTime).toBe(1010)
    expect(decodeAll(records.map(r => r.text))).toEqual(events)
  })

  it('writes one record per event without packChunks', () => {
    const records = encodeBatch(run(0, 5), false)
    expect(records.map(r => r.kind)).toEqual(['event', 'event', 'event', 'event', 'event'])
  })

  it('splits a 2,500-member run at 1,024 members', () => {
    const events = run(0, 2500)
    const records = encodeBatch(events, true)
    expect(records.map(r => members(r.text))).toEqual([MAX_ROW_MEMBERS, MAX_ROW_MEMBERS, 452])
    expect(decodeAll(records.map(r => r.text))).toEqual(events)
  })

  it('emits a remainder below MIN_CHUNK_RUN as scalar events', () => {
    const records = encodeBatch(run(0, MAX_ROW_MEMBERS + 2), true)
    expect(records.map(r => r.kind)).toEqual(['text-chunks', 'event', 'event'])
    expect(records.map(r => r.seq)).toEqual([0, 1024, 1025])
  })

  it('splits at 1 MiB of UTF-8 and emits a member that alone exceeds the cap as a scalar event', () => {
    const big = 'é'.repeat(150_000) // 300,000 UTF-8 bytes per member
    const events = run(0, 5, () => big)
    const records = encodeBatch(events, true)
    expect(records.map(r => r.kind)).toEqual(['text-chunks', 'event', 'event'])
    for (const r of records) expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(MAX_ROW_BYTES)
    const huge = 'x'.repeat(MAX_ROW_BYTES + 10)
    const mixed = [...run(0, 3), chunkEvent(3, huge), ...run(4, 3)]
    const split = encodeBatch(mixed, true)
    expect(split.map(r => [r.kind, r.seq, r.lastSeq])).toEqual([
      ['text-chunks', 0, 2],
      ['event', 3, 3],
      ['text-chunks', 4, 6],
    ])
    expect(decodeAll(split.map(r => r.text))).toEqual(mixed)
  })

  it('P-140 checksums every record: CRC-32 of the UTF-8 text (the same from the text or its bytes), and names a mismatch', () => {
    expect(recordChecksum('123456789')).toBe(0xcbf43926)
    expect(recordChecksum(Buffer.from('héllo ✓', 'utf8'))).toBe(recordChecksum('héllo ✓'))
    const records = encodeBatch([...turn(0, 1), ...run(4, 5)], true)
    for (const record of records) expect(record.crc).toBe(recordChecksum(record.text))
    expect(checksumProblem(0xcbf43926, 0xcbf43926)).toBeUndefined()
    expect(checksumProblem(1, 0xcbf43926)).toEqual({ ok: false, reason: 'checksum mismatch (stored 00000001, computed cbf43926)' })
    expect(checksumProblem(null, 1)).toEqual({ ok: false, reason: 'checksum missing' })
  })

  it('reports records that do not parse or do not decode', () => {
    expect(decodeRecordText('{"type":"turn/st')).toEqual({ ok: false, reason: 'record is not valid JSON' })
    const row = decodeRecordText('{"type":"text-chunks","seq0":0,"time0":0,"data":{}}')
    expect(row.ok).toBe(false)
    expect(row.ok ? '' : row.reason).toMatch(/^malformed text-chunks storage row: /)
    const scalar = decodeRecordText('{"type":"turn/end","seq":4}')
    expect(scalar).toEqual({ ok: true, events: [{ type: 'turn/end', seq: 4 }] })
  })

  it('decode ∘ encode is the identity for any batch of chunk and structural events', () => {
    const arbitraryEvent = fc.oneof(
      fc.record({ kind: fc.constant('text' as const), text: fc.string(), index: fc.nat(2), dt: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant('tool' as const), text: fc.string(), index: fc.nat(1), dt: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant('start' as const), text: fc.constant(''), index: fc.constant(0), dt: fc.integer({ min: 0, max: 50 }) }),
    )
    fc.assert(fc.property(fc.array(arbitraryEvent, { maxLength: 60 }), fc.boolean(), (specs, pack) => {
      let time = 100
      const events = specs.map((spec, seq): SessionEvent => {
        time += spec.dt
        if (spec.kind === 'start') return { type: 'step/start', seq, time, data: { turn: 1, step: 1 } } as SessionEvent
        const chunk = spec.kind === 'text'
          ? { type: 'text-delta', index: spec.index, text: spec.text }
          : { type: 'tool-call-delta', index: spec.index, id: 'c1', argumentsDelta: spec.text }
        return { type: 'assistant/chunk', seq, time, data: { turn: 1, step: 1, chunk } } as SessionEvent
      })
      const records = encodeBatch(events, pack)
      expect(decodeAll(records.map(r => r.text))).toEqual(events)
      expect(records.flatMap(r => decodeStorageRecord(JSON.parse(r.text)) as SessionEvent[]).map(e => e.seq))
        .toEqual(events.map(e => e.seq))
    }))
  })
})
