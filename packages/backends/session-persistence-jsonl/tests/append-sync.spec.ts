/**
 * An append computes its new revision while the device syncs (02 §5 "Append"); the writer adopts it only once the
 * `fdatasync` succeeded. A failed sync truncates back and leaves the writer where it was.
 */
import { readFile } from 'node:fs/promises'
import { encodeBatch } from '@logbook/session-persistence'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { io } from '../src/io.ts'
import { hdr, turns } from './events.ts'
import { useRawBackend } from './raw-backend.ts'

const signal = new AbortController().signal
const env = useRawBackend('fsync', 'logbook-jsonl-sync-')
afterEach(() => { vi.restoreAllMocks() })

describe('P-097 a failed fdatasync', () => {
  it('P-097 fdatasync failing → file back to its size, revision unchanged; the retry stores the batch once with the scanned revision', async () => {
    const token = await env.backend.lock('sync', env.owner(), signal)
    const made = await env.backend.materialize(token, hdr('sync'), encodeBatch(turns(2), true), signal)
    const file = (await env.backend.locate('sync', signal)) as string
    const before = await readFile(file)
    vi.spyOn(io, 'datasync').mockImplementationOnce(async () => {
      throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })
    })
    const batch = encodeBatch(turns(1, 12, 3), true)
    const error = await env.backend.append(token, { nextSeq: 12, revision: made.revision }, batch, signal).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'STORE_IO', cause: { code: 'EIO' } })
    expect(await readFile(file)).toEqual(before)
    expect((await env.backend.scan('sync', {}, signal))!.revision).toBe(made.revision)
    const done = await env.backend.append(token, { nextSeq: 12, revision: made.revision }, batch, signal)
    expect(done.nextSeq).toBe(18)
    const scan = (await env.backend.scan('sync', {}, signal))!
    expect(done.revision).toBe(scan.revision)
    expect(done.physicalLength).toBe(scan.physicalLength)
    expect(scan.records.flatMap(r => (r.result.ok ? r.result.events.map(e => e.seq) : []))).toEqual(Array.from({ length: 18 }, (_, i) => i))
  })
})
