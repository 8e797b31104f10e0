/**
 * An append computes its new revision while the device syncs (02 §5 "Append"); the writer adopts it only once the
 * `fdatasync` succeeded. A failed sync truncates back and leaves the writer where it was.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeBatch, processStartOf, type LockOwner } from '@logbook/session-persistence'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { io } from '../src/io.ts'
import { JsonlBackend } from '../src/jsonl-backend.ts'
import { hdr, turns } from './events.ts'

const signal = new AbortController().signal
let root: string
let backend: JsonlBackend
const owners: string[] = []
const registry = (): Set<string> => (globalThis as { [k: symbol]: Set<string> })[Symbol.for('logbook.persistence.owners')] ??= new Set()

function owner(): LockOwner {
  const o = { ownerId: randomUUID(), pid: process.pid, host: hostname(), processStart: processStartOf(process.pid), acquiredAt: Date.now() }
  registry().add(o.ownerId)
  owners.push(o.ownerId)
  return o
}

beforeEach(async () => {
  root = join(await mkdtemp(join(tmpdir(), 'logbook-jsonl-sync-')), 'store')
  backend = new JsonlBackend(root, 'fsync')
  await backend.start(signal)
})
afterEach(async () => {
  await backend.close()
  for (const id of owners.splice(0)) registry().delete(id)
  await rm(join(root, '..'), { recursive: true, force: true })
  vi.restoreAllMocks()
})

describe('P-097 a failed fdatasync', () => {
  it('P-097 fdatasync failing → file back to its size, revision unchanged; the retry stores the batch once with the scanned revision', async () => {
    const token = await backend.lock('sync', owner(), signal)
    const made = await backend.materialize(token, hdr('sync'), encodeBatch(turns(2), true), signal)
    const file = (await backend.locate('sync', signal)) as string
    const before = await readFile(file)
    vi.spyOn(io, 'datasync').mockImplementationOnce(async () => {
      throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })
    })
    const batch = encodeBatch(turns(1, 12, 3), true)
    const error = await backend.append(token, { nextSeq: 12, revision: made.revision }, batch, signal).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'STORE_IO', cause: { code: 'EIO' } })
    expect(await readFile(file)).toEqual(before)
    expect((await backend.scan('sync', {}, signal))!.revision).toBe(made.revision)
    const done = await backend.append(token, { nextSeq: 12, revision: made.revision }, batch, signal)
    expect(done.nextSeq).toBe(18)
    const scan = (await backend.scan('sync', {}, signal))!
    expect(done.revision).toBe(scan.revision)
    expect(done.physicalLength).toBe(scan.physicalLength)
    expect(scan.records.flatMap(r => (r.result.ok ? r.result.events.map(e => e.seq) : []))).toEqual(Array.from({ length: 18 }, (_, i) => i))
  })
})
