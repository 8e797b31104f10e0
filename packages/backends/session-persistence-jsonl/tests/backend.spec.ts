/**
 * The JSONL hooks driven directly (no coordinator): bytes on disk, markers, revisions, conflicts, locks, listing and
 * checkpoints.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, stat, truncate, writeFile, appendFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { encodeBatch, hex8, recordChecksum, type LockOwner } from '@logbook/session-persistence'
import { JsonlBackend } from '../src/backend.ts'
import { io } from '../src/io.ts'
import { projectKey } from '../src/layout.ts'
import type { JsonlLockToken } from '../src/types.ts'
import { jsonlDamage } from './damage.ts'
import { hdr, openTurnWithChunks, turns } from './events.ts'

const signal = new AbortController().signal
let root: string
let backend: JsonlBackend
const owners: LockOwner[] = []

const registry = (): Set<string> => (globalThis as { [k: symbol]: Set<string> })[Symbol.for('logbook.persistence.owners')] ??= new Set()

/** A live owner of this process, registered like a coordinator's claim. */
function owner(): LockOwner {
  const o = { ownerId: randomUUID(), pid: process.pid, host: hostname(), processStart: null, acquiredAt: Date.now() }
  registry().add(o.ownerId)
  owners.push(o)
  return o
}

beforeEach(async () => {
  root = join(await mkdtemp(join(tmpdir(), 'logbook-jsonl-backend-')), 'store')
  backend = new JsonlBackend(root, 'fsync')
  await backend.start(signal)
})
afterEach(async () => {
  await backend.close()
  for (const o of owners.splice(0)) registry().delete(o.ownerId)
  await rm(join(root, '..'), { recursive: true, force: true })
  vi.restoreAllMocks()
})

async function stored(id: string, count = 2): Promise<{ token: JsonlLockToken; file: string; revision: string; nextSeq: number }> {
  const token = await backend.lock(id, owner(), signal)
  const result = await backend.materialize(token, hdr(id), encodeBatch(turns(count), true), signal)
  const file = (await backend.locate(id, signal)) as string
  return { token, file, revision: result.revision, nextSeq: result.nextSeq }
}

describe('materialise and scan', () => {
  it('writes the header line first with type, version, incarnation, id, in 0700/0600 entries', async () => {
    const { file, nextSeq } = await stored('Sess.A')
    expect(nextSeq).toBe(12)
    expect(file).toBe(join(root, projectKey('/home/user/jsonl-tests'), '~sess.~a', 'session.jsonl'))
    const lines = (await readFile(file, 'utf8')).split('\n')
    expect(lines).toHaveLength(14) // header, 12 records, '' after the last newline
    expect(lines[0]).toMatch(/^[0-9a-f]{8} \{"type":"session","version":1,"incarnation":"[0-9a-f-]{36}","id":"Sess\.A","framing":2,"createdAt":\d+,"cwd":"\/home\/user\/jsonl-tests"\}$/)
    for (const line of lines.slice(0, -1)) expect(line.slice(0, 8)).toBe(hex8(recordChecksum(line.slice(9))))
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    for (const dir of [root, join(root, '.locks'), join(file, '..'), join(file, '..', '..')]) {
      expect((await stat(dir)).mode & 0o777).toBe(0o700)
    }
    expect(JSON.parse(await readFile(join(root, '.logbook-store.json'), 'utf8'))).toMatchObject({ format: 'logbook-jsonl', layout: 1 })
    expect(await readdir(join(file, '..'))).toEqual(['session.jsonl'])
  })

  it('scans records with byte-offset markers, line numbers and the revision of exactly the file', async () => {
    const { file, revision } = await stored('s1')
    const scan = await backend.scan('s1', {}, signal)
    expect(scan).toBeDefined()
    const bytes = await readFile(file)
    expect(scan!.physicalLength).toBe(bytes.length)
    expect(scan!.revision).toBe(revision)
    expect(scan!.header).toEqual(hdr('s1'))
    expect(scan!.headerProblem).toBeUndefined()
    expect(scan!.records).toHaveLength(12)
    const first = scan!.records[0]!
    expect(bytes[first.marker - 1]).toBe(10)
    expect(first.line).toBe(2)
    expect(first.result).toEqual({ ok: true, events: [turns(1)[0]] })
    expect(await backend.scan('missing', {}, signal)).toBeUndefined()
  })

  it('P-185 revision() is the revision a scan reports, read from the file ends; it follows appends and a delete', async () => {
    const { token, file, revision } = await stored('s1', 100) // larger than the first read: header and tail apart
    expect((await stat(file)).size).toBeGreaterThan(16 * 1024)
    expect(await backend.revision('s1', signal)).toBe(revision)
    const appended = await backend.append(token, { nextSeq: 600, revision }, encodeBatch(turns(1, 600, 101), true), signal)
    expect(await backend.revision('s1', signal)).toBe(appended.revision)
    expect((await backend.scan('s1', {}, signal))!.revision).toBe(appended.revision)
    expect(await backend.revision('missing', signal)).toBeUndefined()
    const small = await stored('s2') // read whole by the first read
    expect((await stat(small.file)).size).toBeLessThan(16 * 1024)
    expect(await backend.revision('s2', signal)).toBe(small.revision)
    await backend.remove(token, appended.revision, signal)
    expect(await backend.revision('s1', signal)).toBeUndefined()
  })

  it('refuses to materialise over a stored id in any project directory', async () => {
    const { token, file } = await stored('dup')
    await backend.unlock(token, signal)
    const next = await backend.lock('dup', owner(), signal)
    const before = await readdir(root)
    const error = await backend.materialize(next, hdr('dup', { cwd: '/elsewhere' }), encodeBatch(turns(1), true), signal).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_ALREADY_EXISTS', location: file })
    expect((await readdir(root)).filter((n) => !before.includes(n))).toEqual([]) // a refusal leaves no residue
    expect((await backend.store.findAll('dup')).map((l) => l.file)).toEqual([file])
  })

  it('a materialisation that crashed before its link leaves no session; its temp goes at the next materialisation', async () => {
    const dir = join(root, projectKey('/home/user/jsonl-tests'), 'crashed')
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'session.jsonl.dead-owner.tmp'), '{"type":"session","version":1,')
    expect(await backend.scan('crashed', {}, signal)).toBeUndefined()
    await stored('crashed')
    expect(await readdir(dir)).toEqual(['session.jsonl'])
  })

  it('reports a header whose cwd does not match its project directory', async () => {
    await stored('moved')
    await jsonlDamage(root).setHeaderField('moved', 'cwd', '/home/user/other')
    const scan = await backend.scan('moved', {}, signal)
    expect(scan!.headerProblem).toMatch(/does not match project directory/)
  })
})

describe('append', () => {
  it('P-096 fsync: one fdatasync per batch and a directory fsync at materialisation', async () => {
    const datasync = vi.spyOn(io, 'datasync')
    const fsyncDir = vi.spyOn(io, 'fsyncDir')
    const { token, revision } = await stored('p96')
    expect(fsyncDir).toHaveBeenCalledWith(join(root, projectKey('/home/user/jsonl-tests'), 'p96'))
    const materialised = datasync.mock.calls.length
    datasync.mockClear()
    fsyncDir.mockClear()
    await backend.append(token, { nextSeq: 12, revision }, encodeBatch(turns(1, 12, 3), true), signal)
    expect(datasync).toHaveBeenCalledTimes(1)
    expect(fsyncDir).not.toHaveBeenCalled()
    expect(materialised).toBeGreaterThanOrEqual(1)
  })

  it('P-096 none: neither file nor directory fsync', async () => {
    backend = new JsonlBackend(root, 'none')
    const datasync = vi.spyOn(io, 'datasync')
    const fsyncDir = vi.spyOn(io, 'fsyncDir')
    const { token, revision } = await stored('p96n')
    await backend.append(token, { nextSeq: 12, revision }, encodeBatch(turns(1, 12, 3), true), signal)
    expect(datasync).not.toHaveBeenCalled()
    expect(fsyncDir).not.toHaveBeenCalled()
  })

  it('P-097 ENOSPC after 100 bytes: file back to its size, the retry stores the batch once', async () => {
    const { token, file, revision } = await stored('p97')
    const before = await readFile(file)
    const realWrite = io.write
    vi.spyOn(io, 'write').mockImplementationOnce((fd, buffer, offset, _length, position) => {
      realWrite(fd, buffer, offset, 100, position)
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })
    })
    const batch = encodeBatch(turns(1, 12, 3), true)
    const error = await backend.append(token, { nextSeq: 12, revision }, batch, signal).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'STORE_IO', cause: { code: 'ENOSPC' } })
    expect(await readFile(file)).toEqual(before)
    const done = await backend.append(token, { nextSeq: 12, revision }, batch, signal)
    expect(done.nextSeq).toBe(18)
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n')
    expect(lines).toHaveLength(1 + 18)
    expect(new Set(lines).size).toBe(lines.length)
  })

  it('P-097 truncate failing too → STORE_IO whose cause is an AggregateError of both', async () => {
    const { token, revision } = await stored('p97b')
    vi.spyOn(io, 'write').mockImplementationOnce(() => { throw Object.assign(new Error('eio'), { code: 'EIO' }) })
    vi.spyOn(io, 'truncate').mockImplementationOnce(() => { throw Object.assign(new Error('eio again'), { code: 'EIO' }) })
    const error = await backend.append(token, { nextSeq: 12, revision }, encodeBatch(turns(1, 12, 3), true), signal).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'STORE_IO' })
    expect((error as { cause: unknown }).cause).toBeInstanceOf(AggregateError)
    expect(((error as { cause: AggregateError }).cause.errors as { code: string }[]).map((e) => e.code)).toEqual(['EIO', 'EIO'])
  })

  it('P-098 file grown externally → SESSION_CONFLICT "log changed underneath", nothing written', async () => {
    const { token, file, revision } = await stored('p98')
    await appendFile(file, '{"type":"x/y","seq":12,"time":1,"data":{}}\n')
    const before = await readFile(file)
    const error = await backend.append(token, { nextSeq: 12, revision }, encodeBatch(turns(1, 12, 3), true), signal).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_CONFLICT' })
    expect((error as Error).message).toMatch(/log changed underneath/)
    expect(await readFile(file)).toEqual(before)
  })

  it('a stale revision of the same size is refused on a token’s first use', async () => {
    const { file, revision, token } = await stored('same-size')
    await backend.unlock(token, signal)
    const text = await readFile(file, 'utf8')
    await writeFile(file, text.replace('hello 0"', 'hellO 0"'))
    const next = await backend.lock('same-size', owner(), signal)
    const error = await backend.append(next, { nextSeq: 12, revision }, encodeBatch(turns(1, 12, 3), true), signal).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_CONFLICT' })
  })

  it('a lost lock refuses the write with lost: true', async () => {
    const { token, revision, file } = await stored('lost')
    await rm(join(root, '.locks', 'lost.lock'))
    const before = await readFile(file)
    const error = await backend.append(token, { nextSeq: 12, revision }, encodeBatch(turns(1, 12, 3), true), signal).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    expect(await readFile(file)).toEqual(before)
  })
})

describe('cut, checkpoints, delete', () => {
  it('cuts at a record marker and drops a checkpoint at or beyond the cut seq', async () => {
    const events = [...turns(1), ...openTurnWithChunks(6, 2, 10)]
    const token = await backend.lock('cut', owner(), signal)
    const made = await backend.materialize(token, hdr('cut'), encodeBatch(events, true), signal)
    await backend.writeCheckpoint(token, 'cut', { sessionId: 'cut', seq: 9, anchor: { time: 1, type: 'assistant/chunk' }, rows: {} }, signal)
    expect(await backend.readCheckpoint('cut', signal)).toMatchObject({ seq: 9 })
    const scan = (await backend.scan('cut', {}, signal))!
    const packed = scan.records.at(-1)!
    expect(packed.result).toMatchObject({ ok: true })
    const cut = await backend.cut(token, packed.marker, { nextSeq: 9, revision: made.revision }, signal)
    expect(cut).toMatchObject({ nextSeq: 9, physicalLength: packed.marker })
    expect(await backend.readCheckpoint('cut', signal)).toBeUndefined()
    expect(await readdir(join((await backend.locate('cut', signal))!, '..'))).toEqual(['session.jsonl'])
    const again = (await backend.scan('cut', {}, signal))!
    expect(again.revision).toBe(cut.revision)
    expect(again.records).toHaveLength(scan.records.length - 1)
    const stale = await backend.cut(token, packed.marker + 1, { nextSeq: 9, revision: cut.revision }, signal).catch((e: unknown) => e)
    expect(stale).toMatchObject({ code: 'SESSION_CONFLICT' })
  })

  it('a checkpoint whose seq is no longer below the stored count is not returned', async () => {
    const { token, file } = await stored('cp', 1)
    await backend.writeCheckpoint(token, 'cp', { sessionId: 'cp', seq: 5, anchor: { time: 1, type: 'turn/end' }, rows: { a: 1 } }, signal)
    expect(await backend.readCheckpoint('cp', signal)).toEqual({ sessionId: 'cp', seq: 5, anchor: { time: 1, type: 'turn/end' }, rows: { a: 1 } })
    const text = await readFile(file, 'utf8')
    const lines = text.split('\n')
    await truncate(file, Buffer.byteLength(lines.slice(0, 6).join('\n') + '\n')) // keep seqs 0..4
    expect(await backend.readCheckpoint('cp', signal)).toBeUndefined()
  })

  it('removes the session directory and the lock; a stale revision is refused', async () => {
    const { token, file, revision } = await stored('del')
    await expect(backend.remove(token, `${revision}x`, signal)).rejects.toMatchObject({ code: 'SESSION_CONFLICT' })
    expect(await backend.remove(token, revision, signal)).toEqual({ location: file })
    expect(await backend.exists('del', signal)).toBe(false)
    expect(await readdir(join(root, '.locks'))).toEqual([])
    expect(await readdir(join(root, '.deleted'))).toEqual([])
  })
})

describe('locks', () => {
  it('reads and breaks locks by owner id', async () => {
    const o = owner()
    const token = await backend.lock('lk', o, signal)
    expect(await backend.readLock('lk', signal)).toEqual({ holder: o })
    await expect(backend.breakLock('lk', 'someone-else', signal)).rejects.toMatchObject({ code: 'SESSION_CONFLICT' })
    await backend.breakLock('lk', o.ownerId, signal)
    expect(await backend.readLock('lk', signal)).toBeUndefined()
    await expect(backend.verifyLock(token, signal)).rejects.toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    await backend.unlock(token, signal) // lost: left alone, no throw
    await backend.breakLock('lk', null, signal) // no lock: resolves
  })

  it('a second owner gets SESSION_LOCKED naming the holder', async () => {
    const o = owner()
    await backend.lock('held', o, signal)
    await expect(backend.lock('held', owner(), signal)).rejects.toMatchObject({
      code: 'SESSION_LOCKED',
      details: { holder: { scope: 'process', pid: process.pid, ownerId: o.ownerId, sameHost: true } },
    })
  })
})

describe('list', () => {
  it('summarises from the file ends, pages by keyset and serves follow-up pages from the kept scan', async () => {
    for (let i = 0; i < 5; i++) await stored(`l${i}`, i)
    const first = await backend.list({ limit: 2 }, signal)
    expect(first.items.map((s) => [s.id, s.eventCount])).toEqual([['l4', 24], ['l3', 18]])
    expect(first.hasMore).toBe(true)
    expect(first.items[0]!.updatedAt).toBe(turns(4).at(-1)!.time)
    expect(first.items[0]!.revision).toBe((await backend.scan('l4', {}, signal))!.revision)
    const last = first.items[1]!
    const second = await backend.list({ limit: 10, after: { updatedAt: last.updatedAt, id: last.id } }, signal)
    expect(second.items.map((s) => s.id)).toEqual(['l2', 'l1', 'l0'])
    expect(second.items.at(-1)).toMatchObject({ eventCount: 0, updatedAt: hdr('l0').createdAt })
    expect(second.hasMore).toBe(false)
  })

  it('P-099 a missing root lists nothing and creates nothing', async () => {
    const missing = join(root, '..', 'nowhere')
    const other = new JsonlBackend(missing, 'fsync')
    await other.start(signal)
    expect(await other.list({ limit: 50 }, signal)).toEqual({ items: [], hasMore: false, problems: [] })
    expect(await other.scan('x', {}, signal)).toBeUndefined()
    await expect(stat(missing)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('puts bad headers, bad tails, duplicates and newer versions into problems', async () => {
    await stored('good')
    const { file: bad } = await stored('badtail')
    await appendFile(bad, 'garbage\n')
    await stored('newer')
    await jsonlDamage(root).setHeaderField('newer', 'version', 3)
    const { file: dup } = await stored('dup')
    const otherDir = join(root, projectKey('/x'), 'dup')
    await rm(otherDir, { recursive: true, force: true })
    await import('node:fs/promises').then((fs) => fs.cp(join(dup, '..'), otherDir, { recursive: true }))
    const page = await backend.list({ limit: 50 }, signal)
    expect(page.items.map((s) => s.id)).toEqual(['good'])
    const problems = page.problems.map((p) => [p.sessionId, (p.error as { code?: string }).code]).sort()
    expect(problems).toEqual([
      ['badtail', 'SESSION_CORRUPT'],
      ['dup', 'SESSION_CORRUPT'],
      ['dup', 'SESSION_CORRUPT'],
      ['newer', 'SESSION_FORMAT_UNSUPPORTED'],
    ])
  })
})
