/**
 * F-028…F-031: the index against the store (spec 04 §3.2) — sessions another app (another coordinator on the same
 * store, as another process would be) writes or deletes, an unreadable session logged once, the throttle, and a
 * full rebuild with progress. JSONL and SQLite.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { brief, createSession, detachSession, jsonlStore, mountApp, type StoreKind, type TestApp, tempDir, turn } from './helpers.ts'

const apps: TestApp[] = []
afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.stop()
})

async function mounted(...args: Parameters<typeof mountApp>): Promise<TestApp> {
  const t = await mountApp(...args)
  apps.push(t)
  return t
}

/** Write one stored session of one turn through `t`, then release it. */
async function write(t: TestApp, id: string, prompt: string): Promise<void> {
  const s = await createSession(t, id)
  turn(s, 1, { prompt, reply: 'ok' })
  await detachSession(t, s)
}

const stores: [string, () => StoreKind][] = [
  ['JSONL', jsonlStore],
  ['SQLite', () => ({ kind: 'sqlite', path: join(tempDir(), 'logbook.sqlite') })],
]

describe.each(stores)('%s', (_name, store) => {
  it('F-028 sessions another app writes appear and sessions it deletes disappear, reported by catchUp', async () => {
    const kind = store()
    const reader = await mounted(kind)
    // The writer keeps its own index, as a process without this index would: the reader learns only from the store.
    const writer = await mounted(kind, { path: ':memory:' })
    await write(writer, 'one', 'the first gazelle')
    await write(writer, 'two', 'the second gazelle')
    const progress: string[] = []
    expect(await reader.search.catchUp({ onProgress: p => progress.push(`${p.done}/${p.total}`) })).toEqual({ sessions: 2, indexed: 2, removed: 0, failed: 0 })
    expect(progress).toEqual(['1/2', '2/2'])
    expect((await reader.search.query('gazelle')).map(hit => hit.sessionId).sort()).toEqual(['one', 'two'])
    const { revision } = await writer.app.sessionPersistence.inspect('one')
    await writer.app.sessionPersistence.delete('one', { confirm: 'delete-session', sessionId: 'one', revision })
    expect(await reader.search.catchUp()).toEqual({ sessions: 1, indexed: 0, removed: 1, failed: 0 })
    expect((await reader.search.query('gazelle')).map(hit => hit.sessionId)).toEqual(['two'])
  })
})

describe('catching up', () => {
  it('F-029 an unreadable stored session is logged once and skipped until it changes', async () => {
    const kind = jsonlStore()
    const t = await mounted(kind, { path: ':memory:' })
    await write(t, 'bad', 'the broken tapir')
    await write(t, 'good', 'the healthy tapir')
    const file = (await t.app.sessionPersistence.locate('bad'))!
    const lines = readFileSync(file, 'utf8').split('\n')
    // Garbage before a valid turn/end is corruption (02 §4.1), not a torn tail.
    lines.splice(3, 0, '{"garbage"')
    writeFileSync(file, lines.join('\n'))
    const reader = await mounted(kind)
    expect(await reader.search.catchUp()).toEqual({ sessions: 2, indexed: 1, removed: 0, failed: 1 })
    expect(await reader.search.catchUp()).toEqual({ sessions: 2, indexed: 0, removed: 0, failed: 0 })
    expect((await reader.search.query('tapir')).map(hit => hit.sessionId)).toEqual(['good'])
    const lines2 = reader.logs.filter(line => line.includes('cannot be indexed'))
    expect(lines2).toHaveLength(1)
    expect(lines2[0]).toMatch(/session "bad": cannot be indexed: /)
  })

  it('F-030 a query compares with the store at most every reconcileIntervalMs', async () => {
    const kind = jsonlStore()
    const reader = await mounted(kind, { reconcileIntervalMs: 3_600_000 })
    const writer = await mounted(kind, { path: ':memory:' })
    expect(await reader.search.query('heron')).toEqual([])
    await write(writer, 'late', 'a late heron')
    expect(await reader.search.query('heron')).toEqual([])
    await reader.search.catchUp()
    expect(brief(await reader.search.query('heron'))).toEqual(['late@1 user surface'])
  })

  it('F-031 reindex rebuilds everything from the store with progress; the result equals the incremental index', async () => {
    const kind = jsonlStore()
    const t = await mounted(kind)
    for (const id of ['r1', 'r2', 'r3']) await write(t, id, `the ${id} egret`)
    const before = await t.search.query('egret')
    const progress: string[] = []
    expect(await t.search.reindex({ onProgress: p => progress.push(`${p.done}/${p.total} ${p.sessionId}`) })).toEqual({ sessions: 3, indexed: 3, removed: 0, failed: 0 })
    expect(progress.map(line => line.split(' ')[0])).toEqual(['1/3', '2/3', '3/3'])
    expect(progress.map(line => line.split(' ')[1]).sort()).toEqual(['r1', 'r2', 'r3'])
    // Equal scores keep index order, which a rebuild may change: compare the hits as a set.
    const key = (hit: { sessionId: string; seq: number }): string => `${hit.sessionId}@${hit.seq}`
    expect((await t.search.query('egret')).sort((a, b) => key(a).localeCompare(key(b)))).toEqual(before.sort((a, b) => key(a).localeCompare(key(b))))
    expect(t.search.counts()).toEqual({ sessions: 3, texts: 6 })
  })
})
