import type { SessionEvent } from '@logbook/session'
import { describe, expect, it, vi } from 'vitest'
import type { PhysicalScan, ScanRecord } from '../src/backend.ts'
import { readStored } from '../src/classify.ts'
import { SessionFormatUnsupportedError, SessionPersistenceCorruptionError } from '../src/errors.ts'
import { decodeRecordText, encodeBatch } from '../src/record-codec.ts'
import { turn } from './helpers.ts'

const HEADER = { version: 1, id: 's1', createdAt: 1000 }

/** A scan of `texts` as complete records (JSONL-like: line numbers from 2, markers = record index). */
function scanOf(texts: readonly string[], extra: { header?: unknown; startSeq?: number; last?: Partial<ScanRecord<number>> } = {}): PhysicalScan<number> {
  const records: ScanRecord<number>[] = texts.map((text, index) => ({
    marker: index, complete: true, result: decodeRecordText(text), line: index + 2,
  }))
  if (extra.last !== undefined && records.length > 0) records[records.length - 1] = { ...records.at(-1)!, ...extra.last }
  return {
    header: extra.header ?? HEADER, storeId: 'st', incarnation: 'inc', revision: 'rev', physicalLength: texts.length,
    startSeq: extra.startSeq ?? 0, records, location: '/raw/s1.jsonl', checksums: true,
  }
}

const known = () => true
const text = (event: unknown): string => JSON.stringify(event)
const chunks = (seq0: number, n: number, time0 = 5000) =>
  JSON.stringify({ type: 'text-chunks', seq0, time0, data: { turn: 1, step: 1, index: 0, dt: Array(n - 1).fill(1), texts: Array(n).fill('w') } })
const errorOf = (fn: () => unknown): unknown => {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}

describe('classification (02 §4.1)', () => {
  it('a clean log of scalar and packed records is the whole valid prefix', () => {
    const records = encodeBatch([...turn(0, 1).slice(0, 2), ...Array.from({ length: 5 }, (_, i) => ({
      type: 'assistant/chunk', seq: 2 + i, time: 2000 + i, data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } },
    }) as SessionEvent)], true)
    expect(records.map(r => r.kind)).toEqual(['event', 'event', 'text-chunks'])
    const state = readStored('s1', scanOf(records.map(r => r.text)), known)
    expect(state.torn).toBeNull()
    expect(state.nextSeq).toBe(7)
    expect(state.events.map(e => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6])
  })

  it('a packed record at the wrong seq, or with a member time below 0, is corruption naming the record', () => {
    expect(errorOf(() => readStored('s1', scanOf([text(turn(0, 1)[0]), chunks(2, 4)]), known))).toMatchObject({
      code: 'SESSION_CORRUPT', line: 3, seq: 1, detail: 'seq 2 is not contiguous; expected 1 at line 3 (seq 1)',
    })
    expect(errorOf(() => readStored('s1', scanOf([text(turn(0, 1)[0]), chunks(1, 3, -2)]), known))).toMatchObject({
      code: 'SESSION_CORRUPT', seq: 1, detail: 'time must be a non-negative safe integer at line 3 (seq 1)',
    })
  })

  it.each([
    ['an unknown key', { ...turn(0, 1)[0], extra: 1 }, 'unknown key "extra"'],
    ['surface metadata on a non-surface type', { ...turn(0, 1)[0], surfaceOp: 'append' }, 'event "turn/start" is not a surface type and cannot carry surface metadata'],
    ['ignorable on a surface type', { type: 'user/message', seq: 0, time: 1, data: {}, ignorable: true }, 'event "user/message": surface events cannot be ignorable'],
    ['ignorable other than true', { ...turn(0, 1)[0], ignorable: false }, 'ignorable must be true when present'],
    ['a type without a slash', { type: 'turn', seq: 0, time: 1, data: {} }, 'event type "turn" is invalid'],
    ['a negative time', { ...turn(0, 1)[0], time: -1 }, 'time must be a non-negative safe integer'],
    ['no data', { type: 'turn/start', seq: 0, time: 1 }, 'data is required'],
    ['an array', [turn(0, 1)[0]], 'event must be an object'],
  ])('%s makes a complete record corruption, and an incomplete last one a torn tail', (_, event, detail) => {
    expect(errorOf(() => readStored('s1', scanOf([text(event)]), known))).toMatchObject({ code: 'SESSION_CORRUPT', line: 2, seq: 0, detail: `${detail} at line 2 (seq 0)` })
    const state = readStored('s1', scanOf([text(event)], { last: { complete: false } }), known)
    expect(state.torn?.report).toEqual({ fromSeq: 0, droppedRecords: 1, droppedEvents: 1, detail: 'incomplete record (no terminating newline)' })
    expect(state.events).toEqual([])
  })

  it('only the incomplete last record is a torn tail: a complete defect anywhere is corruption, valid records after it are never cut', () => {
    const events = turn(0, 1)
    // A defect inside the last open turn, with no turn/end after it: once "a tail", now corruption.
    const open = [text(events[0]), text(events[1]), 'garbage', text(events[2])]
    const error = errorOf(() => readStored('s1', scanOf(open), known))
    expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(error).toMatchObject({ code: 'SESSION_CORRUPT', line: 4, seq: 2, location: '/raw/s1.jsonl' })
    expect((error as Error).message).toBe('session "s1": corrupt log: record is not valid JSON at line 4 (seq 2) (raw log: /raw/s1.jsonl)')
    // The same defect as an incomplete record that is not the last one is still corruption.
    const scan = scanOf([text(events[0]), 'garbage', text(events[2])])
    const records = scan.records.map((r, i) => (i === 1 ? { ...r, complete: false } : r))
    expect(errorOf(() => readStored('s1', { ...scan, records }, known))).toMatchObject({ code: 'SESSION_CORRUPT', seq: 1 })
    // A checksum that fails is corruption too, whatever the text would decode to.
    const flipped = scanOf([text(events[0]), text(events[1])], { last: { result: { ok: false, reason: 'checksum mismatch (stored 00000001, computed 00000002)' } } })
    expect(errorOf(() => readStored('s1', flipped, known))).toMatchObject({
      code: 'SESSION_CORRUPT', line: 3, seq: 1, detail: 'checksum mismatch (stored 00000001, computed 00000002) at line 3 (seq 1)',
    })
  })

  it('a torn last record counts its decoded events, else the events store metadata gives it', () => {
    const decodable = readStored('s1', scanOf([text(turn(0, 1)[0]), chunks(1, 5)], { last: { complete: false } }), known)
    expect(decodable.torn?.report).toMatchObject({ fromSeq: 1, droppedRecords: 1, droppedEvents: 5 })
    const last = readStored('s1', scanOf([text(turn(0, 1)[0]), 'torn'], { last: { complete: false, eventCount: 50 } }), known)
    expect(last.torn?.report).toMatchObject({ droppedRecords: 1, droppedEvents: 50, detail: 'record is not valid JSON' })
    expect(last.torn?.marker).toBe(1)
  })

  it('a header the backend cannot trust is corruption before its version is read', () => {
    const scan = { ...scanOf([], { header: { ...HEADER, version: 99 } }), headerDefect: 'header checksum mismatch (stored 00000001, computed 00000002)' }
    expect(errorOf(() => readStored('s1', scan, known))).toMatchObject({ code: 'SESSION_CORRUPT', detail: 'header checksum mismatch (stored 00000001, computed 00000002)' })
  })

  it('checks in order: version before the header, corruption before unknown types, unknown types before lineage', () => {
    const future = errorOf(() => readStored('s1', scanOf(['garbage'], { header: { version: 3, createdAt: 'x' } }), known))
    expect(future).toBeInstanceOf(SessionFormatUnsupportedError)
    expect((future as Error).message).toBe(
      'session "s1" was written by a newer Logbook (format 3, this build reads 2): upgrade Logbook (raw log: /raw/s1.jsonl)',
    )
    expect(errorOf(() => readStored('s1', scanOf([], { header: { ...HEADER, version: '1' } }), known))).toMatchObject({ code: 'SESSION_CORRUPT' })
    const unknown = (type: string) => type !== 'future/event'
    const corrupt = [text({ type: 'future/event', seq: 0, time: 1, data: {} }), 'garbage', text(turn(1, 1)[3])]
    expect(errorOf(() => readStored('s1', scanOf(corrupt), unknown))).toMatchObject({ code: 'SESSION_CORRUPT' })
    // Only valid events count: an unknown type inside the torn tail is cut, not refused.
    const tail = readStored('s1', scanOf([text(turn(0, 1)[0]), text({ type: 'future/event', seq: 1, time: 1, data: {} })], { last: { complete: false } }), unknown)
    expect(tail.torn?.report.fromSeq).toBe(1)
    const seeded = { ...HEADER, parentSession: 'p', isSeeded: true, seedLength: 0 }
    const both = errorOf(() => readStored('s1', scanOf([text({ type: 'future/event', seq: 0, time: 1, data: {} })], { header: seeded }), unknown))
    expect(both).toMatchObject({ code: 'SESSION_FORMAT_UNSUPPORTED', found: 'future/event', direction: 'newer' })
  })

  it('asks the known-type registry once per type name and never for ignorable events', () => {
    const isKnown = vi.fn((type: string) => type !== 'plugin/x')
    const events = [...turn(0, 1), ...turn(4, 2), { type: 'plugin/x', seq: 8, time: 1, data: {}, ignorable: true }]
    readStored('s1', scanOf(events.map(text)), isKnown)
    expect(isKnown.mock.calls.map(c => c[0]).sort()).toEqual(['step/end', 'step/start', 'turn/end', 'turn/start'])
  })

  it('lineage: a seeded header needs the inherited marker at seedLength; a seek past it does not check it', () => {
    const seeded = { ...HEADER, parentSession: 'p', isSeeded: true, seedLength: 1 }
    const marker = { type: 'session/end-seed', seq: 1, time: 1, data: { inherited: true } }
    expect(readStored('s1', scanOf([text(turn(0, 1)[0]), text(marker)], { header: seeded }), known).nextSeq).toBe(2)
    const missing = errorOf(() => readStored('s1', scanOf([text(turn(0, 1)[0]), text({ ...marker, data: {} })], { header: seeded }), known))
    expect(missing).toMatchObject({ code: 'SESSION_CORRUPT', seq: 1 })
    expect((missing as SessionPersistenceCorruptionError).detail).toBe('seeded session must hold session/end-seed {inherited: true} at seq 1')
    const seek = scanOf([text({ ...turn(0, 1)[1], seq: 2 })], { header: seeded, startSeq: 2 })
    expect(readStored('s1', seek, known).events.map(e => e.seq)).toEqual([2])
  })
})
