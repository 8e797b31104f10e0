/** fsync discipline, shared directory syncs and write-failure rollback through the plugin (P-096, P-182, P-097). */
import { readFile, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SessionId } from '@logbook/session'
import { deferred, tick, type Deferred } from '@logbook/test-kit'
import { io, syncDir } from '../src/io.ts'
import { projectKey } from '../src/layout.ts'
import { hdr, turns } from './events.ts'
import { JsonlApp, tempRoot } from './mount.ts'

let root: string
let cleanup: () => Promise<void>
let app: JsonlApp | undefined

beforeEach(async () => {
  ;({ root, cleanup } = await tempRoot())
})
afterEach(async () => {
  vi.restoreAllMocks()
  await app?.stop()
  app = undefined
  await cleanup()
})

function liveTurn(session: ReturnType<JsonlApp['sessions']['create']>, n: number): void {
  session.append('turn/start', { turn: n })
  session.append('user/message', { id: `u${n}` as never, role: 'user', content: [{ type: 'text', text: `hi ${n}` }], source: { kind: 'user' } }, { surfaceOp: 'append' })
  session.append('turn/end', { turn: n, reason: { kind: 'completed' } })
}

describe('P-096 fsync discipline', () => {
  it('P-096 fsync: one fdatasync per batch, directory fsync only when materialising', async () => {
    app = await JsonlApp.start(root, { durability: 'fsync' })
    const session = app.sessions.create('p96' as SessionId, { meta: { cwd: '/p96' } })
    liveTurn(session, 1)
    const datasync = vi.spyOn(io, 'datasync')
    const fsyncDir = vi.spyOn(io, 'fsyncDir')
    await app.sessions.flush(session)
    const file = (await app.persistence.locate('p96')) as string
    expect(fsyncDir.mock.calls.map((c) => c[0])).toContain(file.slice(0, -'/session.jsonl'.length))
    expect(datasync).toHaveBeenCalled()
    for (let n = 2; n <= 4; n++) {
      datasync.mockClear()
      fsyncDir.mockClear()
      liveTurn(session, n)
      await app.sessions.flush(session)
      expect(datasync, `batch ${n}`).toHaveBeenCalledTimes(1)
      expect(fsyncDir, `batch ${n}`).not.toHaveBeenCalled()
    }
    expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(1 + 12)
  })

  it('P-096 none: neither file nor directory fsync anywhere', async () => {
    const datasync = vi.spyOn(io, 'datasync')
    const fsyncDir = vi.spyOn(io, 'fsyncDir')
    app = await JsonlApp.start(root, { durability: 'none' })
    const session = app.sessions.create('p96n' as SessionId, { meta: { cwd: '/p96' } })
    liveTurn(session, 1)
    await app.sessions.flush(session)
    liveTurn(session, 2)
    await app.sessions.flush(session)
    const handle = await app.persistence.create(hdr('p96n-h'))
    await handle.append(turns(1))
    await handle.close()
    expect(datasync).not.toHaveBeenCalled()
    expect(fsyncDir).not.toHaveBeenCalled()
  })
})

describe('P-182 concurrent syncs of one directory are shared', () => {
  /** Stubs `io.fsyncDir` with syncs the test ends itself; returns the paths synced and their settlers, in order. */
  function heldSyncs(): { paths: string[]; held: Deferred<void>[] } {
    const paths: string[] = []
    const held: Deferred<void>[] = []
    vi.spyOn(io, 'fsyncDir').mockImplementation((path) => {
      const sync = deferred()
      paths.push(path)
      held.push(sync)
      return sync.promise
    })
    return { paths, held }
  }

  /** Whether `promise` has settled (after pending microtasks and one macrotask). */
  async function settled(promise: Promise<unknown>): Promise<boolean> {
    let done = false
    promise.then(() => (done = true), () => (done = true))
    await tick()
    return done
  }

  it('P-182 requests made while a sync runs share the next one, which starts after it; another directory runs at once', async () => {
    const { paths, held } = heldSyncs()
    const first = syncDir('/d', 'fsync')
    const second = syncDir('/d', 'fsync')
    const third = syncDir('/d', 'fsync')
    const other = syncDir('/e', 'fsync')
    expect(paths).toEqual(['/d', '/e'])
    held[0]!.resolve()
    expect(await settled(first)).toBe(true)
    // The first sync may have read the directory before the later callers' changes: they wait for a new one.
    expect(await settled(second)).toBe(false)
    expect(paths).toEqual(['/d', '/e', '/d'])
    const fourth = syncDir('/d', 'fsync')
    held[2]!.resolve()
    expect(await settled(second)).toBe(true)
    expect(await settled(third)).toBe(true)
    expect(await settled(fourth)).toBe(false)
    expect(paths).toEqual(['/d', '/e', '/d', '/d'])
    held[3]!.resolve()
    held[1]!.resolve()
    await Promise.all([fourth, other])
    // Once nothing runs, a request starts its own sync at once.
    void syncDir('/d', 'fsync')
    expect(paths).toEqual(['/d', '/e', '/d', '/d', '/d'])
    held[4]!.resolve()
  })

  it('P-182 a failed sync rejects only its own requests; the queued ones get the next sync', async () => {
    const { paths, held } = heldSyncs()
    const first = syncDir('/d', 'fsync')
    const queued = syncDir('/d', 'fsync')
    const error = Object.assign(new Error('EIO'), { code: 'EIO' })
    held[0]!.reject(error)
    await expect(first).rejects.toBe(error)
    await tick()
    expect(paths).toEqual(['/d', '/d'])
    held[1]!.resolve()
    await expect(queued).resolves.toBeUndefined()
  })

  it('P-182 sessions materialised at once in one project directory share its syncs, and each is stored whole', async () => {
    app = await JsonlApp.start(root, { durability: 'fsync' })
    const projectDir = join(root, projectKey('/p182'))
    const real = io.fsyncDir.bind(io)
    // Each sync of the project directory takes a little longer, as on a slow disk, so the creations overlap it.
    const fsyncDir = vi.spyOn(io, 'fsyncDir').mockImplementation(async (path) => {
      if (path === projectDir) await tick(20)
      await real(path)
    })
    const count = 16
    const sessions = Array.from({ length: count }, (_, i) => app!.sessions.create(`p182-${i}` as SessionId, { meta: { cwd: '/p182' } }))
    for (const session of sessions) liveTurn(session, 1)
    await Promise.all(sessions.map((session) => app!.sessions.flush(session)))
    const synced = fsyncDir.mock.calls.map((c) => c[0])
    // One sync per new session directory, as before; the directory holding them all is synced fewer times than that.
    for (let i = 0; i < count; i++) {
      const file = (await app.persistence.locate(`p182-${i}`)) as string
      expect(dirname(dirname(file))).toBe(projectDir)
      expect(synced.filter((p) => p === dirname(file))).toHaveLength(1)
      expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(1 + 3)
    }
    const projectSyncs = synced.filter((p) => p === projectDir).length
    expect(projectSyncs).toBeGreaterThanOrEqual(1)
    expect(projectSyncs).toBeLessThan(count)
  })
})

describe('P-097 failed appends roll back', () => {
  it('P-097 ENOSPC after 100 bytes of a batch → file back to its size; the retry stores it once', async () => {
    app = await JsonlApp.start(root)
    const handle = await app.persistence.create(hdr('p97'))
    await handle.append(turns(1))
    const file = (await app.persistence.locate('p97')) as string
    const before = await readFile(file)
    const realWrite = io.write
    const write = vi.spyOn(io, 'write').mockImplementationOnce((fd, buffer, offset, _length, position) => {
      realWrite(fd, buffer, offset, 100, position)
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
    })
    const batch = turns(1, 6, 2)
    await expect(handle.append(batch)).rejects.toMatchObject({ code: 'STORE_IO', cause: { code: 'ENOSPC' } })
    expect(await readFile(file)).toEqual(before)
    expect(write).toHaveBeenCalledTimes(1)
    await expect(handle.append(batch)).resolves.toMatchObject({ nextSeq: 12 })
    await handle.close()
    const reader = await app.persistence.open('p97', 'read')
    expect(await reader.read()).toEqual([...turns(1), ...batch])
    expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(13)
  })

  it('P-097 truncate failing too → STORE_IO with an AggregateError, terminal for the live writer', async () => {
    app = await JsonlApp.start(root)
    const session = app.sessions.create('p97t' as SessionId, { meta: { cwd: '/p97' } })
    liveTurn(session, 1)
    await app.sessions.flush(session)
    const file = (await app.persistence.locate('p97t')) as string
    const size = (await stat(file)).size
    const write = vi.spyOn(io, 'write').mockImplementationOnce(() => { throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }) })
    vi.spyOn(io, 'truncate').mockImplementationOnce(() => { throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }) })
    liveTurn(session, 2)
    const error = await app.sessions.flush(session).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'STORE_IO' })
    expect((error as { cause: unknown }).cause).toBeInstanceOf(AggregateError)
    expect(write).toHaveBeenCalledTimes(1)
    // Terminal: the next flush rejects with the same object and never touches the file again.
    liveTurn(session, 3)
    await expect(app.sessions.flush(session)).rejects.toBe(error)
    expect(write).toHaveBeenCalledTimes(1)
    expect((await stat(file)).size).toBeGreaterThanOrEqual(size)
  })
})
