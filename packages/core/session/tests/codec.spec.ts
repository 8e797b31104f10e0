import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ChunkRowError } from '../src/errors.ts'
import { CHUNK_ROW_TAGS, decodeStorageRecord, MIN_CHUNK_RUN, packChunkRuns, type StorageRecord } from '../src/codec.ts'
import type { SessionEvent } from '../src/types.ts'

type Chunk = Record<string, unknown>
const ev = (seq: number, time: number, chunk: Chunk, turn = 1, step = 1): SessionEvent =>
  ({ type: 'assistant/chunk', seq, time, data: { turn, step, chunk } }) as unknown as SessionEvent
const text = (t: string, index = 0): Chunk => ({ type: 'text-delta', index, text: t })
const reasoning = (t: string, index = 0): Chunk => ({ type: 'reasoning-delta', index, text: t })
const tool = (args: string, id = 'c1', name?: string, index = 0): Chunk =>
  name === undefined ? { type: 'tool-call-delta', index, id, argumentsDelta: args } : { type: 'tool-call-delta', index, id, name, argumentsDelta: args }

const decodeAll = (records: readonly unknown[]): SessionEvent[] => records.flatMap((r) => decodeStorageRecord(r))
const roundTrip = (events: readonly StorageRecord[]): SessionEvent[] =>
  decodeAll(JSON.parse(JSON.stringify(packChunkRuns(events))) as unknown[])
const rowCount = (records: readonly StorageRecord[]): number =>
  records.filter((r) => (CHUNK_ROW_TAGS as readonly string[]).includes(r.type)).length

function rowError(value: unknown): string {
  try {
    decodeStorageRecord(value)
  } catch (error) {
    expect(error).toBeInstanceOf(ChunkRowError)
    expect((error as ChunkRowError).code).toBe('MALFORMED_CHUNK_ROW')
    return (error as Error).message
  }
  throw new Error('row accepted')
}

describe('chunk-row codec (01 §10)', () => {
  it('S-131 packs five text deltas into one row and decodes them back', () => {
    const events = ['a', 'b', 'c', 'd', 'e'].map((t, i) => ev(i, 100 + 10 * i, text(t)))
    const packed = packChunkRuns(events)
    expect(packed).toEqual([{
      type: 'text-chunks', seq0: 0, time0: 100, data: { turn: 1, step: 1, index: 0, dt: [10, 10, 10, 10], texts: ['a', 'b', 'c', 'd', 'e'] },
    }])
    expect(Object.keys(packed[0]!)).toEqual(['type', 'seq0', 'time0', 'data'])
    expect(Object.keys((packed[0] as { data: object }).data)).toEqual(['turn', 'step', 'index', 'dt', 'texts'])
    const decoded = decodeStorageRecord(packed[0])
    expect(decoded).toEqual(events)
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(events))
    for (const member of decoded) {
      expect(Object.isFrozen(member)).toBe(true)
      expect(Object.isFrozen(member.data)).toBe(true)
      expect(Object.isFrozen((member.data as { chunk: object }).chunk)).toBe(true)
    }
    expect(decoded[0]!.data).not.toBe(decoded[1]!.data)
  })

  it('decoded text and reasoning members with the same fragment at index 0 share one frozen chunk, across rows', () => {
    const words = ['the', ' cat', ' the', ' dog', ' the']
    const first = decodeStorageRecord(packChunkRuns(words.map((t, i) => ev(i, 100 + i, text(t))))[0])
    const second = decodeStorageRecord(packChunkRuns(words.map((t, i) => ev(10 + i, 200 + i, text(t), 2)))[0])
    const chunkOf = (e: SessionEvent): object => (e.data as { chunk: object }).chunk
    expect(chunkOf(first[2]!)).toBe(chunkOf(first[4]!))
    expect(chunkOf(second[1]!)).toBe(chunkOf(first[1]!))
    expect(chunkOf(first[0]!)).not.toBe(chunkOf(first[2]!))
    expect(first[2]).not.toBe(first[4])
    expect(first[2]!.data).not.toBe(first[4]!.data)
    expect(second.map(e => e.seq)).toEqual([10, 11, 12, 13, 14])
    // the kind is part of the key: a reasoning member never shares a text member's chunk
    const thinking = decodeStorageRecord(packChunkRuns(words.map((t, i) => ev(i, 100 + i, reasoning(t))))[0])
    expect(chunkOf(thinking[0]!)).toEqual(reasoning('the'))
    expect(chunkOf(thinking[0]!)).not.toBe(chunkOf(first[0]!))
  })

  it('decoded members at another index, or index -0, own their chunk', () => {
    const row = (index: number): StorageRecord => ({ type: 'text-chunks', seq0: 0, time0: 0, data: { turn: 1, step: 1, index, dt: [1, 1], texts: ['x', 'x', 'x'] } }) as StorageRecord
    const chunkOf = (e: SessionEvent): { index: number } => (e.data as { chunk: { index: number } }).chunk
    const two = decodeStorageRecord(row(2))
    expect(chunkOf(two[0]!)).not.toBe(chunkOf(two[1]!))
    expect(chunkOf(two[0]!)).toEqual(text('x', 2))
    const negativeZero = decodeStorageRecord(row(-0))
    expect(Object.is(chunkOf(negativeZero[0]!).index, -0)).toBe(true)
    expect(Object.is(chunkOf(decodeStorageRecord(row(0))[0]!).index, 0)).toBe(true)
  })

  it('S-132 leaves a run of 2 verbatim and packs a run of 3', () => {
    expect(MIN_CHUNK_RUN).toBe(3)
    const two = [ev(0, 0, text('a')), ev(1, 0, text('b'))]
    const packedTwo = packChunkRuns(two)
    expect(packedTwo).toHaveLength(2)
    expect(packedTwo[0]).toBe(two[0])
    expect(packedTwo[1]).toBe(two[1])
    expect(packChunkRuns([...two, ev(2, 0, text('c'))])).toHaveLength(1)
  })

  it('S-132 breaks a run on a seq gap, index, step, kind, tool id or name presence change', () => {
    const breakers: [string, SessionEvent[]][] = [
      ['seq gap', [ev(0, 0, text('a')), ev(1, 0, text('b')), ev(2, 0, text('c')), ev(4, 0, text('d')), ev(5, 0, text('e')), ev(6, 0, text('f'))]],
      ['index', [ev(0, 0, text('a')), ev(1, 0, text('b')), ev(2, 0, text('c')), ev(3, 0, text('d', 1)), ev(4, 0, text('e', 1)), ev(5, 0, text('f', 1))]],
      ['step', [ev(0, 0, text('a')), ev(1, 0, text('b')), ev(2, 0, text('c')), ev(3, 0, text('d'), 1, 2), ev(4, 0, text('e'), 1, 2), ev(5, 0, text('f'), 1, 2)]],
      ['turn', [ev(0, 0, text('a')), ev(1, 0, text('b')), ev(2, 0, text('c')), ev(3, 0, text('d'), 2), ev(4, 0, text('e'), 2), ev(5, 0, text('f'), 2)]],
      ['kind', [ev(0, 0, text('a')), ev(1, 0, text('b')), ev(2, 0, text('c')), ev(3, 0, reasoning('d')), ev(4, 0, reasoning('e')), ev(5, 0, reasoning('f'))]],
      ['tool id', [ev(0, 0, tool('a')), ev(1, 0, tool('b')), ev(2, 0, tool('c')), ev(3, 0, tool('d', 'c2')), ev(4, 0, tool('e', 'c2')), ev(5, 0, tool('f', 'c2'))]],
      ['name presence', [ev(0, 0, tool('a', 'c1', 'n')), ev(1, 0, tool('b', 'c1', 'n')), ev(2, 0, tool('c', 'c1', 'n')),
        ev(3, 0, tool('d')), ev(4, 0, tool('e')), ev(5, 0, tool('f'))]],
      ['name value', [ev(0, 0, tool('a', 'c1', 'n')), ev(1, 0, tool('b', 'c1', 'n')), ev(2, 0, tool('c', 'c1', 'n')),
        ev(3, 0, tool('d', 'c1', 'm')), ev(4, 0, tool('e', 'c1', 'm')), ev(5, 0, tool('f', 'c1', 'm'))]],
    ]
    for (const [name, events] of breakers) {
      const packed = packChunkRuns(events)
      expect([name, packed.length, rowCount(packed)]).toEqual([name, 2, 2])
      expect(decodeAll(packed)).toEqual(events)
      const merged = packChunkRuns(events.slice(0, 3).concat(events.slice(0, 3).map((e, i) => ev(3 + i, 0, (e.data as { chunk: Chunk }).chunk))))
      expect([name, merged.length]).toEqual([name, 1])
    }
  })

  it('S-133 round-trips a tool row without a name key, and with one', () => {
    const unnamed = [ev(7, 1, tool('{"a"')), ev(8, 2, tool(':1')), ev(9, 3, tool('}'))]
    const [row] = packChunkRuns(unnamed) as unknown as [{ data: object }]
    expect(row).toEqual({ type: 'tool-call-chunks', seq0: 7, time0: 1, data: { turn: 1, step: 1, index: 0, id: 'c1', dt: [1, 1], args: ['{"a"', ':1', '}'] } })
    expect('name' in row.data).toBe(false)
    const decoded = roundTrip(unnamed)
    expect(decoded).toEqual(unnamed)
    expect(decoded.every((e) => !('name' in (e.data as { chunk: object }).chunk))).toBe(true)
    const named = [ev(0, 1, tool('a', 'c', 'read')), ev(1, 2, tool('b', 'c', 'read')), ev(2, 3, tool('c', 'c', 'read'))]
    const [namedRow] = packChunkRuns(named) as unknown as [{ data: object }]
    expect(Object.keys(namedRow.data)).toEqual(['turn', 'step', 'index', 'id', 'name', 'dt', 'args'])
    expect(roundTrip(named)).toEqual(named)
    expect(Object.keys((roundTrip(named)[0]!.data as { chunk: object }).chunk)).toEqual(['type', 'index', 'id', 'name', 'argumentsDelta'])
  })

  it('S-133 keeps chunks with an extra key, ignorable or non-string text verbatim', () => {
    const extraChunk = ev(3, 0, { ...text('d'), extra: 1 })
    const ignorable = { ...ev(3, 0, text('d')), ignorable: true } as unknown as SessionEvent
    const nonString = ev(3, 0, { type: 'text-delta', index: 0, text: 5 })
    const extraData = { type: 'assistant/chunk', seq: 3, time: 0, data: { turn: 1, step: 1, chunk: text('d'), x: 1 } } as unknown as SessionEvent
    const otherChunk = ev(3, 0, { type: 'block-start', index: 0, blockType: 'text' })
    for (const odd of [extraChunk, ignorable, nonString, extraData, otherChunk]) {
      const events = [ev(0, 0, text('a')), ev(1, 0, text('b')), odd, ev(4, 0, text('e')), ev(5, 0, text('f'))]
      const packed = packChunkRuns(events)
      expect(packed).toEqual(events)
      expect(packed[2]).toBe(odd)
    }
    const surrounded = [ev(0, 0, text('a')), ev(1, 0, text('b')), ev(2, 0, text('c')), extraChunk, ev(4, 0, text('e')), ev(5, 0, text('f')), ev(6, 0, text('g'))]
    const packed = packChunkRuns(surrounded)
    expect(packed).toHaveLength(3)
    expect(packed[1]).toBe(extraChunk)
    expect(decodeAll(packed)).toEqual(surrounded)
  })

  it('S-133 counts own keys only: an inherited envelope key stays verbatim, a polluted prototype does not stop a pack', () => {
    const inherited = Object.assign(Object.create({ time: 0 }) as object, { type: 'assistant/chunk', seq: 2, data: { turn: 1, step: 1, chunk: text('c') } })
    const events = [ev(0, 0, text('a')), ev(1, 0, text('b')), inherited as SessionEvent, ev(3, 0, text('d')), ev(4, 0, text('e'))]
    const packed = packChunkRuns(events)
    expect(packed).toEqual(events)
    expect(packed[2]).toBe(inherited)
    Object.defineProperty(Object.prototype, 'polluted', { value: 1, enumerable: true, configurable: true, writable: true })
    try {
      const run = [ev(0, 0, text('a')), ev(1, 0, text('b')), ev(2, 0, text('c'))]
      expect(packChunkRuns(run)).toHaveLength(1)
    } finally {
      delete (Object.prototype as { polluted?: unknown }).polluted
    }
  })

  it('S-134 round-trips negative gaps and splits a run on a gap beyond the safe range', () => {
    const events = [ev(0, 50, text('a')), ev(1, 20, text('b')), ev(2, 90, text('c')), ev(3, -5, text('d'))]
    const packed = packChunkRuns(events) as unknown as [{ data: { dt: number[] } }]
    expect(packed[0].data.dt).toEqual([-30, 70, -95])
    expect(roundTrip(events)).toEqual(events)
    const max = Number.MAX_SAFE_INTEGER
    const wide = [ev(0, -max, text('a')), ev(1, -max, text('b')), ev(2, -max, text('c')), ev(3, max, text('d')), ev(4, max, text('e')), ev(5, max, text('f'))]
    const split = packChunkRuns(wide)
    expect([split.length, rowCount(split)]).toEqual([2, 2])
    expect(roundTrip(wide)).toEqual(wide)
  })

  it('S-135 passes values that are not rows through as they are', () => {
    const event = { type: 'plugin/x', seq: 0, time: 0, data: {} }
    expect(decodeStorageRecord(event)[0]).toBe(event)
    for (const v of [null, 5, 'text-chunks', [1], { type: 'chunks' }, { type: 5 }, { seq0: 1 }]) {
      const out = decodeStorageRecord(v)
      expect(out).toHaveLength(1)
      expect(out[0]).toBe(v)
    }
  })

  it('S-135 throws each malformed-row message in check order', () => {
    const good = { type: 'text-chunks', seq0: 0, time0: 0, data: { turn: 1, step: 1, index: 0, dt: [1, 1, 1], texts: ['a', 'b', 'c', 'd'] } }
    const goodTool = { type: 'tool-call-chunks', seq0: 0, time0: 0, data: { turn: 1, step: 1, index: 0, id: 'c', dt: [1], args: ['a', 'b'] } }
    const withData = (data: Record<string, unknown>, row: Record<string, unknown> = good): unknown => ({ ...row, data: { ...(row.data as object), ...data } })
    const cases: [unknown, string][] = [
      [{ ...good, extra: 1 }, 'malformed text-chunks storage row: envelope must be exactly {type, seq0, time0, data}'],
      [{ type: 'reasoning-chunks', seq0: 0, time0: 0 }, 'malformed reasoning-chunks storage row: envelope must be exactly {type, seq0, time0, data}'],
      [{ ...good, seq0: -1 }, 'malformed text-chunks storage row: seq0 must be a non-negative safe integer'],
      [{ ...good, seq0: '0', time0: 'x' }, 'malformed text-chunks storage row: seq0 must be a non-negative safe integer'],
      [{ ...good, time0: 1.5 }, 'malformed text-chunks storage row: time0 must be a safe integer'],
      [{ ...good, data: [] }, 'malformed text-chunks storage row: data must be an object'],
      [withData({ id: 'c' }), 'malformed text-chunks storage row: data must be exactly {turn, step, index, dt, texts}'],
      [withData({ texts: ['x'] }, goodTool), 'malformed tool-call-chunks storage row: data must be exactly {turn, step, index, id, name?, dt, args}'],
      [{ ...goodTool, data: { turn: 1, step: 1, index: 0, dt: [1], args: ['a', 'b'] } },
        'malformed tool-call-chunks storage row: data must be exactly {turn, step, index, id, name?, dt, args}'],
      [withData({ id: 5 }, goodTool), 'malformed tool-call-chunks storage row: id (and name when present) must be strings'],
      [withData({ name: null }, goodTool), 'malformed tool-call-chunks storage row: id (and name when present) must be strings'],
      [withData({ turn: '1' }), 'malformed text-chunks storage row: turn/step/index must be numbers'],
      [withData({ index: null }, goodTool), 'malformed tool-call-chunks storage row: turn/step/index must be numbers'],
      [withData({ texts: [] }), 'malformed text-chunks storage row: texts must be a non-empty string array'],
      [withData({ texts: ['a', 1] }), 'malformed text-chunks storage row: texts must be a non-empty string array'],
      [withData({ args: 'ab' }, goodTool), 'malformed tool-call-chunks storage row: args must be a non-empty string array'],
      [withData({ dt: [1, 1.5, 1] }), 'malformed text-chunks storage row: dt must be an array of safe integers'],
      [withData({ dt: {} }), 'malformed text-chunks storage row: dt must be an array of safe integers'],
      [withData({ dt: [1, 1] }), 'malformed text-chunks storage row: dt length 2 does not match 4 members'],
      [{ ...good, seq0: Number.MAX_SAFE_INTEGER - 2 }, 'malformed text-chunks storage row: member seqs must stay safe integers'],
      [{ ...good, time0: Number.MAX_SAFE_INTEGER - 2 }, 'malformed text-chunks storage row: member times must stay safe integers'],
    ]
    for (const [row, message] of cases) expect(rowError(row)).toBe(message)
    expect(decodeStorageRecord(good)).toHaveLength(4)
    expect(decodeStorageRecord({ ...good, seq0: Number.MAX_SAFE_INTEGER - 3 }).at(-1)!.seq).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('S-136 decode ∘ pack is the identity, also through a JSON round trip', () => {
    const str = fc.string({ maxLength: 4 })
    const chunk = fc.oneof(
      fc.record({ type: fc.constantFrom('text-delta', 'reasoning-delta'), index: fc.nat(2), text: str }),
      fc.record({ type: fc.constant('tool-call-delta'), index: fc.nat(2), id: fc.constantFrom('c1', 'c2'), argumentsDelta: str }),
      fc.record({ type: fc.constant('tool-call-delta'), index: fc.nat(2), id: fc.constantFrom('c1', 'c2'), name: fc.constantFrom('a', 'b'), argumentsDelta: str }),
      fc.record({ type: fc.constant('text-delta'), index: fc.nat(2), text: str, extra: fc.boolean() }),
      fc.record({ type: fc.constant('block-start'), index: fc.nat(2), blockType: fc.constant('text') }),
    )
    const segment = fc.oneof(
      // A run of similar chunks: the same chunk repeated with fresh text, so runs of all lengths occur.
      fc.record({ kind: fc.constant('run' as const), chunk, count: fc.integer({ min: 1, max: 6 }), turn: fc.integer({ min: 1, max: 2 }), step: fc.integer({ min: 1, max: 2 }) }),
      fc.record({ kind: fc.constant('other' as const), ignorable: fc.boolean() }),
    )
    const input = fc.record({
      segments: fc.array(segment, { maxLength: 12 }),
      gaps: fc.array(fc.integer({ min: -1_000, max: 1_000_000 }), { minLength: 80, maxLength: 80 }),
      seqGaps: fc.array(fc.constantFrom(1, 1, 1, 1, 2), { minLength: 80, maxLength: 80 }),
    })
    let rows = 0
    let verbatim = 0
    fc.assert(fc.property(input, ({ segments, gaps, seqGaps }) => {
      const events: SessionEvent[] = []
      let seq = 0
      let time = 1_700_000_000_000
      let k = 0
      for (const s of segments) {
        const count = s.kind === 'run' ? s.count : 1
        for (let i = 0; i < count; i++, k++) {
          if (s.kind === 'run') {
            const c = { ...s.chunk }
            if ('text' in c) c.text = `${c.text}${i}`
            if ('argumentsDelta' in c) c.argumentsDelta = `${c.argumentsDelta}${i}`
            events.push(ev(seq, time, c, s.turn, s.step))
          } else {
            const other = { type: 'plugin/x', seq, time, data: { k }, ...(s.ignorable ? { ignorable: true } : {}) }
            events.push(other as unknown as SessionEvent)
          }
          seq += seqGaps[k % 80]!
          time += gaps[k % 80]!
        }
      }
      const packed = packChunkRuns(events)
      expect(decodeAll(packed)).toEqual(events)
      expect(roundTrip(events)).toEqual(events)
      expect(JSON.stringify(roundTrip(events))).toBe(JSON.stringify(events))
      expect(packed.length).toBeLessThanOrEqual(events.length)
      rows += rowCount(packed)
      verbatim += packed.length - rowCount(packed)
    }), { numRuns: 300 })
    // The generator exercises both paths.
    expect(rows).toBeGreaterThan(50)
    expect(verbatim).toBeGreaterThan(50)
  })
})
