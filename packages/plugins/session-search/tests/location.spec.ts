/**
 * F-024…F-027: where the index lives (spec 04 §1.3) and what happens to a file there that is not a current index.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import MemorySessionPersistence, { type SessionPersistence } from '@logbook/session-persistence'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import SessionSearch, { INDEX_SCHEMA_VERSION } from '../src/index.ts'
import { indexBesideFile, indexPath } from '../src/location.ts'
import { brief, createSession, jsonlStore, mountApp, type TestApp, tempDir, turn } from './helpers.ts'

const apps: TestApp[] = []
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop()
})

async function mounted(...args: Parameters<typeof mountApp>): Promise<TestApp> {
  const t = await mountApp(...args)
  apps.push(t)
  return t
}

const refusal = async (work: Promise<unknown>): Promise<{ code: unknown; message: string }> => {
  const error = await work.then(() => undefined, (e: unknown) => e)
  return { code: (error as { code?: unknown }).code, message: (error as Error).message }
}

describe('the index location', () => {
  it('F-024 JSONL: a reserved dot file in the store root, created 0600 in a 0700 folder only when something is indexed', async () => {
    const store = jsonlStore()
    const t = await mounted(store)
    const root = (store as { root: string }).root
    expect(t.search.indexLocation).toBe(join(root, '.search-index.sqlite'))
    expect(await t.search.query('anything')).toEqual([])
    expect(existsSync(root)).toBe(false)
    const s = await createSession(t, 'a')
    turn(s, 1, { prompt: 'the ocelot', reply: 'ok' })
    await t.app.sessions.flush(s)
    expect(brief(await t.search.query('ocelot'))).toEqual(['a@1 user surface'])
    expect(statSync(t.search.indexLocation).mode & 0o777).toBe(0o600)
    expect((await t.app.sessionPersistence.list()).items.map(item => item.id)).toEqual(['a'])
  })

  it('F-025 SQLite: <name>.search.sqlite beside the database file; a configured path resolves against the config folder', async () => {
    const dir = tempDir()
    const t = await mounted({ kind: 'sqlite', path: join(dir, 'logbook.sqlite') })
    expect(t.search.indexLocation).toBe(join(dir, 'logbook.search.sqlite'))
    const s = await createSession(t, 'q')
    turn(s, 1, { prompt: 'the quokka', reply: 'ok' })
    await t.app.sessions.flush(s)
    expect(brief(await t.search.query('quokka'))).toEqual(['q@1 user surface'])
    expect(existsSync(join(dir, 'logbook.search.sqlite'))).toBe(true)
    expect(indexBesideFile('/data/store')).toBe('/data/store.search.sqlite')
    expect(indexBesideFile('/data/x.DB')).toBe('/data/x.search.sqlite')

    const app = new Context()
    ;(app as { baseUrl?: string }).baseUrl = pathToFileURL(join(dir, 'conf', 'cordis.yml')).href
    await app.plugin(SessionStore)
    await app.plugin(MemorySessionPersistence)
    const fiber = await app.plugin(SessionSearch, { path: 'idx/search.sqlite' } as never)
    expect(app.sessionSearch.indexLocation).toBe(join(dir, 'conf', 'idx', 'search.sqlite'))
    await fiber.dispose()
  })

  it('F-026 a backend that is not durable gets an index in memory; a durable one without a location needs a path', async () => {
    const app = new Context()
    await app.plugin(SessionStore)
    await app.plugin(MemorySessionPersistence)
    const fiber = await app.plugin(SessionSearch)
    expect(app.sessionSearch.indexLocation).toBe(':memory:')
    await fiber.dispose()
    const server = { storeLocation: undefined, capabilities: { durable: true, crossProcess: true, locate: false }, backendName: 'postgres' } as unknown as SessionPersistence
    expect(() => indexPath(undefined, undefined, server)).toThrow(expect.objectContaining({
      code: 'INDEX_PATH_REQUIRED',
      message: 'session search needs an index path: persistence backend "postgres" has no local store location (set path in the session-search config)',
    }))
    expect(indexPath('/srv/index.sqlite', undefined, server)).toBe('/srv/index.sqlite')
  })

  it('F-027 a foreign file at the index path is refused and left alone; an index of another version is rebuilt', async () => {
    const store = jsonlStore()
    const root = (store as { root: string }).root
    const t = await mounted(store)
    const s = await createSession(t, 'v')
    turn(s, 1, { prompt: 'the vicuna', reply: 'ok' })
    await t.app.sessions.flush(s)
    expect(brief(await t.search.query('vicuna'))).toEqual(['v@1 user surface'])
    await apps.pop()!.stop()

    const index = join(root, '.search-index.sqlite')
    const old = new Database(index)
    old.pragma(`user_version = ${INDEX_SCHEMA_VERSION + 1}`)
    old.close()
    const again = await mounted(store)
    expect(brief(await again.search.query('vicuna'))).toEqual(['v@1 user surface'])
    const check = new Database(index, { readonly: true })
    expect(check.pragma('user_version', { simple: true })).toBe(INDEX_SCHEMA_VERSION)
    check.close()
    await apps.pop()!.stop()

    for (const suffix of ['', '-wal', '-shm']) rmSync(index + suffix, { force: true })
    const foreign = new Database(index)
    foreign.exec('CREATE TABLE notes (body TEXT)')
    foreign.close()
    const bytes = readFileSync(index)
    const third = await mounted(store)
    const { code, message } = await refusal(third.search.query('vicuna'))
    expect(code).toBe('INDEX_UNAVAILABLE')
    expect(message).toBe(`search index ${index} cannot be used: the file is not a Logbook search index (another application_id or foreign tables)`)
    expect(readFileSync(index)).toEqual(bytes)
  })
})
