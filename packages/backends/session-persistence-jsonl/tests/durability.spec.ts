/** fsync discipline and write-failure rollback through the plugin (P-096, P-097). */
import { readFile, stat } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SessionId } from '@logbook/session'
import { io } from '../src/io.ts'
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
