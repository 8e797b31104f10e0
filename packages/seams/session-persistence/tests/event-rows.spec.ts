import type { SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import type { EncodedRecord, ScanRecord } from '../src/backend.ts'
import { checkedBodyRecords, cutUpdatedAt, decodeEventRow, eventRowCount, EventRowRecords, type CheckedBodyRow, type EventRowColumns } from '../src/event-rows.ts'
import { decodeRecordText, encodeBatch, hex8, recordChecksum } from '../src/record-codec.ts'
import { turn } from './helpers.ts'

const chunk = (seq: number, time = 3000 + seq): SessionEvent =>
  ({ type: 'assistant/chunk', seq, time, data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: `w${seq}` } } }) as SessionEvent

const rowOf = (r: EncodedRecord): EventRowColumns => [r.seq, r.lastSeq, r.kind, r.type, r.time, r.text, r.crc]

/** A log of scalar rows and one packed row (seqs 4–11), as a row store holds it. */
function storedRows(): EventRowColumns[] {
  const first = turn(0, 1).slice(0, 4)
  const events = [...first, ...Array.from({ length: 8 }, (_, i) => chunk(first.length + i))]
  const tail = turn(events.length, 2).slice(0, 3)
  return encodeBatch([...events, ...tail], true).map(rowOf)
}

const recordsOf = (rows: readonly EventRowColumns[], nextSeq: number, fromSeq = 0) => {
  const walk = new EventRowRecords(nextSeq, fromSeq)
  walk.add(rows)
  return walk.finish()
}

const reasons = (records: readonly ScanRecord<number>[]) => records.map(r => (r.result.ok ? 'ok' : r.result.reason))

describe('event rows (02 §6, §6b "Defects")', () => {
  it('decodes each row once, as the codec decodes its body, with the end of the previous row as its marker', () => {
    const rows = storedRows()
    const nextSeq = rows[rows.length - 1]![1] + 1
    const { records, startSeq } = recordsOf(rows, nextSeq)
    expect(startSeq).toBe(0)
    expect(records.map(r => [r.marker, r.eventCount, r.complete])).toEqual(rows.map(row => [row[0], row[1] - row[0] + 1, true]))
    const packed = records.find(r => r.result.ok && r.result.run !== undefined)
    expect(packed?.eventCount).toBe(8)
    for (let i = 0; i < rows.length; i++) {
      const result = records[i]!.result
      expect(result.ok).toBe(true)
      if (result.ok) expect([...result.events]).toEqual([...(decodeRecordText(rows[i]![5]) as { events: readonly SessionEvent[] }).events])
    }
  })

  it('makes a defect of a row whose checksum is missing or wrong, whose body is not JSON or differs from a column', () => {
    const row = storedRows()[1]!
    const [seq, lastSeq, kind, type, time, body] = row
    const crc = row[6] as number
    const badBody = body.replace('"seq":1', '"seq":1 ')
    const cases: [EventRowColumns, string][] = [
      [[seq, lastSeq, kind, type, time, body, null], 'row at seq 1: checksum missing'],
      [[seq, lastSeq, kind, type, time, badBody, crc], `row at seq 1: checksum mismatch (stored ${hex8(crc)}, computed ${hex8(recordChecksum(badBody))})`],
      [[seq, lastSeq, kind, type, time, '{"type":', recordChecksum('{"type":')], 'row at seq 1: body is not valid JSON'],
      [[seq, lastSeq, kind, 'turn/end', time, body, crc], `row at seq 1: body type ${type} differs from type column turn/end`],
      [[seq, lastSeq, kind, type, time + 1, body, crc], `row at seq 1: body time ${time} differs from time column ${time + 1}`],
      [[seq, lastSeq + 1, kind, type, time, body, crc], `row at seq 1: body last seq ${lastSeq} differs from last_seq column ${lastSeq + 1}`],
    ]
    for (const [columns, reason] of cases) expect(decodeEventRow(columns)).toEqual({ ok: false, reason })
    // A store format without checksums (no `crc` element) decodes the body unchecked.
    expect(decodeEventRow([seq, lastSeq, kind, type, time, badBody]).ok).toBe(true)
  })

  it('adds the row-store defects: a row reaching beyond the stored next seq, rows missing below it', () => {
    const rows = storedRows()
    const packedAt = rows.findIndex(row => row[2] !== 'event')
    const packed = rows[packedAt]!
    const beyond = recordsOf(rows.slice(0, packedAt + 1), packed[1])
    expect(reasons(beyond.records).slice(-1)).toEqual([`row at seq ${packed[0]} reaches beyond the stored next seq ${packed[1]}`])
    expect(beyond.records[packedAt]!.eventCount).toBe(8)

    const short = recordsOf(rows.slice(0, packedAt), packed[1] + 1)
    expect(short.records.length).toBe(packedAt + 1)
    expect(short.records[packedAt]).toEqual({
      marker: packed[0],
      complete: true,
      result: { ok: false, reason: `rows from seq ${packed[0]} below the stored next seq ${packed[1] + 1} are missing` },
    })

    expect(recordsOf([], 0)).toEqual({ records: [], startSeq: 0 })
    expect(reasons(recordsOf([], 3).records)).toEqual(['rows from seq 0 below the stored next seq 3 are missing'])
  })

  it('a seek skips rows ending before its seq and starts at the row that holds it', () => {
    const rows = storedRows()
    const nextSeq = rows[rows.length - 1]![1] + 1
    const packed = rows.find(row => row[2] !== 'event')!
    const inside = recordsOf(rows, nextSeq, packed[0] + 3)
    expect(inside.startSeq).toBe(packed[0])
    expect(inside.records.map(r => r.marker)).toEqual(rows.filter(row => row[1] >= packed[0] + 3).map(row => row[0]))
    expect(reasons(inside.records).every(r => r === 'ok')).toBe(true)
    // A seek at a scalar row's seq starts at that row.
    const at = recordsOf(rows, nextSeq, rows[2]![0])
    expect([at.startSeq, at.records.length, at.records[0]!.marker]).toEqual([rows[2]![0], rows.length - 2, rows[2]![0]])
    // A seek past the last row: no record, the records start at the next seq.
    expect(recordsOf(rows, nextSeq, nextSeq)).toEqual({ records: [], startSeq: nextSeq })
  })

  it('gives the same records whichever pages the rows come in', () => {
    const rows = storedRows()
    const nextSeq = rows[rows.length - 1]![1] + 2
    const whole = recordsOf(rows, nextSeq)
    for (let split = 0; split <= rows.length; split++) {
      const walk = new EventRowRecords(nextSeq, 0)
      walk.add(rows.slice(0, split))
      walk.add(rows.slice(split))
      expect(walk.finish()).toEqual(whole)
    }
  })

  it('counts the events a row claims by its columns, 1 when they make no sense', () => {
    expect(eventRowCount([4, 11, 'text-chunks', 'assistant/chunk', 0, '', 0])).toBe(8)
    expect(eventRowCount([4, 4, 'event', 'turn/end', 0, '', 0])).toBe(1)
    expect(eventRowCount([4, 2, 'event', 'turn/end', 0, '', 0])).toBe(1)
    expect(eventRowCount([-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'event', 'turn/end', 0, '', 0])).toBe(1)
  })

  it('lets a cut go ahead only after a row that ends right before the marker and checks', () => {
    const rows = storedRows()
    const nextSeq = rows[rows.length - 1]![1] + 1
    const packedAt = rows.findIndex(row => row[2] !== 'event')
    const packed = rows[packedAt]!
    // The new updated_at is the time of the kept row's last event: a packed row's is read off its run.
    expect(cutUpdatedAt('s', packed[1] + 1, nextSeq, 7, packed)).toBe(3000 + packed[1])
    expect(cutUpdatedAt('s', 1, nextSeq, 7, rows[0])).toBe(rows[0]![4])
    expect(cutUpdatedAt('s', 0, nextSeq, 7, undefined)).toBe(7)
    const stale = (marker: number, before: EventRowColumns | undefined): unknown => {
      try {
        cutUpdatedAt('s', marker, nextSeq, 7, before)
      } catch (error) {
        return { code: (error as { code?: string }).code, message: (error as Error).message }
      }
      return 'went ahead'
    }
    const refusal = (marker: number, why: string) => ({ code: 'SESSION_CONFLICT', message: `session "s": repair is stale (cut at seq ${marker}: ${why})` })
    for (const marker of [-1, nextSeq + 1, 1.5]) expect(stale(marker, rows[0])).toEqual(refusal(marker, 'not a seq of this log'))
    expect(stale(1, undefined)).toEqual(refusal(1, 'no row ends right before it'))
    // Inside the packed row: the row below the marker ends after it.
    expect(stale(packed[0] + 2, packed)).toEqual(refusal(packed[0] + 2, 'no row ends right before it'))
    expect(stale(packed[1] + 1, [...packed.slice(0, 6), 0] as unknown as EventRowColumns)).toEqual(refusal(packed[1] + 1, 'the row before it is not valid'))
  })

  it('makes the same records from bodies the store vouched for, and gives up on any doubt', () => {
    const rows = storedRows()
    const nextSeq = rows[rows.length - 1]![1] + 1
    const bodies = (list: readonly EventRowColumns[]): CheckedBodyRow[] => list.map(row => [row[5], row[6] as number, row[2] === 'event' ? null : row[1]])
    expect(checkedBodyRecords(bodies(rows), nextSeq)).toEqual(recordsOf(rows, nextSeq))
    expect(checkedBodyRecords([], 0)).toEqual(recordsOf([], 0))
    const doubts: [string, CheckedBodyRow[], number][] = [
      ['a scalar row the store found in disagreement', bodies(rows).map((row, i) => i === 2 ? [row[0], row[1], -1] : row), nextSeq],
      ['a packed row the store found in disagreement', bodies(rows).map((row, i) => i === 4 ? [row[0], row[1], -1] : row), nextSeq],
      ["a packed row's last_seq short of its run", bodies(rows).map((row, i) => i === 4 ? [row[0], row[1], 10] : row), nextSeq],
      ['a checksum that fails', bodies(rows).map((row, i) => i === 2 ? [row[0], (row[1]! + 1) >>> 0, null] : row), nextSeq],
      ['a missing checksum', bodies(rows).map((row, i) => i === 2 ? [row[0], null, null] : row), nextSeq],
      ['a body that is not JSON', [...bodies(rows.slice(0, 2)), ['{"type":', recordChecksum('{"type":'), null]], nextSeq],
      ['a body that does not decode', [...bodies(rows.slice(0, 2)), ['{"type":"text-chunks"}', recordChecksum('{"type":"text-chunks"}'), null]], nextSeq],
      ['a missing row', bodies([rows[0]!, ...rows.slice(2)]), nextSeq],
      // Rows 0–2, then the packed row at 4–11: its 8 members would end at the next seq 11 if counted from 3.
      ['a gap before a packed row', bodies([...rows.slice(0, 3), rows[4]!]), 11],
      ['a row past the packed one missing', bodies(rows.filter(row => row[0] !== 12)), nextSeq],
      ['rows short of the next seq', bodies(rows), nextSeq + 1],
      ['rows beyond the next seq', bodies(rows), nextSeq - 1],
    ]
    for (const [doubt, list, next] of doubts) expect(checkedBodyRecords(list, next), doubt).toBeUndefined()
  })
})
