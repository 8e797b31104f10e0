/**
 * F-022, F-023: an index that cannot be written (another connection holds its write lock) never fails or delays an
 * append; the failure is logged once per streak and reported, queries keep answering from the index, and the session
 * is reindexed from its log once the index can be written — at the next query, or by `reindex`.
 */
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import type { SearchIndexFailedEvent } from '../src/index.ts'
import { brief, checkIndex, createSession, jsonlStore, mountApp, type TestApp, turn } from './helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** An app that fails index writes at once while locked, and retries only when asked. */
async function app(): Promise<{ t: TestApp; failures: SearchIndexFailedEvent[]; lock: () => () => void }> {
  const t = await mountApp(jsonlStore(), { busyTimeoutMs: 0, retryDelayMs: 600_000 })
  cleanups.push(() => t.stop())
  const failures: SearchIndexFailedEvent[] = []
  t.app.on('search/index-failed', event => {
    failures.push(event)
  })
  const lock = (): (() => void) => {
    const other = new Database(t.search.indexLocation)
    other.exec('BEGIN IMMEDIATE')
    const release = (): void => {
      if (!other.open) return
      other.exec('ROLLBACK')
      other.close()
    }
    cleanups.push(release)
    return release
  }
  return { t, failures, lock }
}

const warnings = (t: TestApp): string[] => t.logs.filter(line => line.includes('indexing failed'))

describe('an index that cannot be written', () => {
  it('F-022 never fails an append, is logged once, and the session is reindexed at the next query once writable', async () => {
    const { t, failures, lock } = await app()
    const s = await createSession(t, 's1')
    turn(s, 1, { prompt: 'the first marmot', reply: 'ok' })
    await t.app.sessions.flush(s)
    expect(brief(await t.search.query('marmot'))).toEqual(['s1@1 user surface'])
    const release = lock()
    const second = turn(s, 2, { prompt: 'a lynx appears', reply: 'ok' })
    await t.app.sessions.flush(s)
    expect(s.events[second.user]!.type).toBe('user/message')
    expect(await t.search.query('lynx')).toEqual([])
    expect(brief(await t.search.query('marmot'))).toEqual(['s1@1 user surface'])
    const third = turn(s, 3, { prompt: 'and a lynx cub', reply: 'ok' })
    await t.app.sessions.flush(s)
    expect(await t.search.query('lynx')).toEqual([])
    expect(warnings(t)).toHaveLength(1)
    expect(warnings(t)[0]).toContain('session "s1": indexing failed: database is locked; it is reindexed once the index can be written')
    expect(failures.length).toBeGreaterThanOrEqual(2)
    expect(new Set(failures.map(failure => `${failure.sessionId} ${failure.source}`))).toEqual(new Set(['s1 live', 's1 stored']))
    release()
    expect(brief(await t.search.query('lynx')).sort()).toEqual([`s1@${second.user} user surface`, `s1@${third.user} user surface`].sort())
    expect(t.search.counts()).toEqual({ sessions: 1, texts: 6 })
    checkIndex(t.search.indexLocation)
    expect(warnings(t)).toHaveLength(1)
  })

  it('F-023 reindex rebuilds a session the index missed, from the store', async () => {
    const { t, lock } = await app()
    const s = await createSession(t, 's2')
    turn(s, 1, { prompt: 'the first ibex', reply: 'ok' })
    await t.app.sessions.flush(s)
    await t.search.query('ibex')
    const release = lock()
    turn(s, 2, { prompt: 'a second ibex', reply: 'ok' })
    await t.app.sessions.flush(s)
    await t.search.query('ibex')
    release()
    const progress: string[] = []
    const report = await t.search.reindex({ sessionId: 's2', onProgress: p => progress.push(`${p.done}/${p.total} ${p.sessionId}`) })
    expect(report).toEqual({ sessions: 1, indexed: 1, removed: 0, failed: 0 })
    expect(progress).toEqual(['1/1 s2'])
    expect((await t.search.query('ibex')).length).toBe(2)
    expect(t.search.counts()).toEqual({ sessions: 1, texts: 4 })
    checkIndex(t.search.indexLocation)
  })
})
