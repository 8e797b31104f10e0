/**
 * Appends are framed into a per-writer slab (02 §5 "Append"): the bytes written and every state's revision tail are
 * views of it, and a view never changes once handed out — not when later batches follow it, not when a batch that
 * was framed is never committed, not across a slab change or a batch too large for a slab (P-170).
 */
import { readFile } from 'node:fs/promises'
import { encodeBatch, type EncodedRecord } from '@logbook/session-persistence'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AppendSlab, SLAB_BYTES } from '../src/append-slab.ts'
import { CURRENT_FRAMING, frameRecords, LEGACY_FRAMING, type Framing } from '../src/framing.ts'
import { io } from '../src/io.ts'
import { parseRevision, REVISION_TAIL, revisionOf } from '../src/revision.ts'
import { ev, hdr, turns } from './events.ts'
import { useRawBackend } from './raw-backend.ts'

const signal = new AbortController().signal
afterEach(() => { vi.restoreAllMocks() })

/** One scalar record of about `chars` characters of `unit`. */
function records(seq: number, count: number, chars: number, unit = 'x'): EncodedRecord[] {
  const events = Array.from({ length: count }, (_, i) => ev('tool/result', seq + i, { callId: `c${seq + i}`, output: unit.repeat(chars) }))
  return encodeBatch(events, false)
}

const lines = (batch: readonly EncodedRecord[], framing: Framing): Buffer => Buffer.from(frameRecords(batch, framing), 'utf8')
const last = (bytes: Buffer): Buffer => bytes.subarray(Math.max(0, bytes.length - REVISION_TAIL))
/** Byte equality without an element-wise deep compare (the batches reach 200 KB). */
const same = (actual: Buffer, expected: Buffer): void => { expect(actual.equals(expected), 'bytes differ').toBe(true) }

describe('P-170 appends framed in a slab', () => {
  for (const framing of [CURRENT_FRAMING, LEGACY_FRAMING] as const) {
    it(`P-170 framing ${framing}: each batch's bytes are its lines, each tail the file's last 4096 bytes, and no earlier view changes afterwards`, () => {
      const slab = new AppendSlab()
      let file: Buffer = Buffer.from('header line\n')
      let tail: Buffer = Buffer.from(file)
      const seen: { view: Buffer; copy: Buffer }[] = []
      // Small batches, multi-byte text, a batch that crosses the end of a slab and one larger than a slab.
      const batches = [records(0, 1, 10), records(1, 3, 700, 'é'), records(4, 2, 2500, '字'), records(6, 40, 1000),
        records(46, 1, 3 * SLAB_BYTES), records(47, 1, 5), records(48, 30, 2000, '😀'), records(78, 2, 1)]
      for (const batch of batches) {
        const framed = slab.frame(batch, framing, tail)
        same(framed.data, lines(batch, framing))
        file = Buffer.concat([file, framed.data])
        same(framed.tail, last(file))
        seen.push({ view: framed.data, copy: Buffer.from(framed.data) }, { view: framed.tail, copy: Buffer.from(framed.tail) })
        tail = framed.tail
      }
      for (const { view, copy } of seen) same(view, copy)
    })
  }

  it('P-170 a batch framed but never committed leaves every view as it was; the next batch follows the committed state', () => {
    const slab = new AppendSlab()
    const committed = slab.frame(records(0, 2, 300), CURRENT_FRAMING, Buffer.from('head\n'))
    const file = Buffer.concat([Buffer.from('head\n'), committed.data])
    const committedCopy = Buffer.from(committed.tail)
    const failed = slab.frame(records(2, 1, 400), CURRENT_FRAMING, committed.tail)
    const failedCopy = Buffer.from(failed.data)
    const retried = slab.frame(records(2, 2, 100), CURRENT_FRAMING, committed.tail)
    same(retried.data, lines(records(2, 2, 100), CURRENT_FRAMING))
    same(retried.tail, last(Buffer.concat([file, retried.data])))
    same(committed.tail, committedCopy)
    same(failed.data, failedCopy)
  })
})

describe('P-170 revisions of slab-framed appends', () => {
  const env = useRawBackend('none', 'logbook-jsonl-slab-')

  it('P-170 every commit result, read only after all appends (one failed write among them), names its own state: the revision of the file\'s bytes at its size', async () => {
    const token = await env.backend.lock('slab', env.owner(), signal)
    const made = await env.backend.materialize(token, hdr('slab'), encodeBatch(turns(1), true), signal)
    const results = [made]
    let seq = 6
    for (let i = 0; i < 40; i++) {
      if (i === 17) {
        vi.spyOn(io, 'write').mockImplementationOnce(() => { throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }) })
        const error = await env.backend.append(token, results.at(-1)!, records(seq, 2, 900), signal).catch((e: unknown) => e)
        expect(error).toMatchObject({ code: 'STORE_IO' })
      }
      const batch = i === 30 ? records(seq, 1, 2 * SLAB_BYTES) : records(seq, 1 + (i % 4), 150 * (1 + (i % 7)), i % 3 === 0 ? 'ü' : 'a')
      results.push(await env.backend.append(token, results.at(-1)!, batch, signal))
      seq = results.at(-1)!.nextSeq
    }
    const bytes = await readFile((await env.backend.locate('slab', signal))!)
    const { storeId, incarnation } = parseRevision(made.revision)!
    for (const result of results) {
      const at = bytes.subarray(0, result.physicalLength)
      expect(result.revision).toBe(revisionOf(storeId, incarnation, at.length, at))
    }
    expect(results.at(-1)!.physicalLength).toBe(bytes.length)
    expect((await env.backend.scan('slab', {}, signal))!.revision).toBe(results.at(-1)!.revision)
  })
})
