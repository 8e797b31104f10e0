/**
 * Listing cost and paging (02 §6 "List"): a later page seeks by the keyset on the `updated_at DESC, id` index instead of
 * reading the rows before it, and still skips bad rows while filling the page.
 */

import { rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { recordChecksum } from '@logbook/session-persistence'
import { afterEach, describe, expect, it } from 'vitest'
import type { SqliteBackend } from '../src/backend.ts'
import { sql } from '../src/sql.ts'
import { tempDir } from './fixture.ts'
import { header, owner, records, signal, startBackend, turn } from './helpers.ts'

const dirs: string[] = []
const backends: SqliteBackend[] = []
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

async function storeWith(ids: readonly string[], time: (i: number) => number): Promise<{ backend: SqliteBackend; path: string }> {
  const dir = tempDir()
  dirs.push(dir)
  const path = join(dir, 'logbook.sqlite')
  const backend = await startBackend(path)
  backends.push(backend)
  for (const [i, id] of ids.entries()) {
    const token = await backend.lock(id, owner(), signal)
    await backend.materialize(token, header(id), records(turn(0, 1, time(i))), signal)
    await backend.unlock(token, signal)
  }
  return { backend, path }
}

function plan(path: string, statement: 'list-sessions-v2' | 'list-sessions-after-v2'): string[] {
  const db = new Database(path, { readonly: true })
  try {
    const params = { cwd: null, parentMode: 0, parentSession: null, updatedAfter: null, afterUpdatedAt: 5, afterId: 'x', limit: -1 }
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql(statement)}`).all(params) as { detail: string }[]).map(row => row.detail)
  } finally {
    db.close()
  }
}

describe('listing', () => {
  it('P-166 a later page is a range search on logbook_sessions_by_update; no page sorts in a temporary b-tree', async () => {
    const { path } = await storeWith(['a', 'b'], i => 1_700_000_001_000 + i)
    expect(plan(path, 'list-sessions-after-v2')).toEqual(['SEARCH logbook_sessions USING INDEX logbook_sessions_by_update (updated_at<?)'])
    expect(plan(path, 'list-sessions-v2')).toEqual(['SCAN logbook_sessions USING INDEX logbook_sessions_by_update'])
  })

  it('P-166 a walk with ties across page boundaries returns every session once in order, skipping a bad row mid-page', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
    // Three sessions share each updatedAt, so page boundaries fall inside runs of equal times.
    const { backend, path } = await storeWith(ids, i => 1_700_000_001_000 + Math.floor(i / 3) * 1000)
    const db = new Database(path)
    db.prepare("UPDATE logbook_sessions SET crc = crc + 1 WHERE id = 'e'").run()
    db.close()
    const first = await backend.list({ limit: 2 }, signal)
    expect(first.problems.map(p => [p.sessionId, (p.error as { code?: string }).code])).toEqual([['e', 'SESSION_CORRUPT']])
    const seen = first.items.map(s => s.id)
    let after = first.items.at(-1)!
    for (let more = first.hasMore; more; ) {
      const page = await backend.list({ limit: 2, after: { updatedAt: after.updatedAt, id: after.id } }, signal)
      expect(page.problems).toEqual([])
      expect(page.items.length === 2 || !page.hasMore).toBe(true)
      seen.push(...page.items.map(s => s.id))
      more = page.hasMore
      after = page.items.at(-1) ?? after
    }
    // Newest first (g alone at the latest time, then d, f at the middle one), then id ascending within a time.
    expect(seen).toEqual(['g', 'd', 'f', 'a', 'b', 'c'])
  })

  it('P-168 a header changed after a listing is checked again: the next first page reports it, a page summarises the new one', async () => {
    const { backend, path } = await storeWith(['a', 'b', 'c'], i => 1_700_000_001_000 + i)
    expect((await backend.list({ limit: 50 }, signal)).items.map(s => s.id)).toEqual(['c', 'b', 'a'])
    const db = new Database(path)
    db.prepare("UPDATE logbook_sessions SET header = replace(header, 'home', 'hove') WHERE id = 'a'").run()
    db.prepare("UPDATE logbook_sessions SET header = replace(header, 'home', 'hive'), cwd = '/hive/user/app', crc = ? WHERE id = 'b'")
      .run(recordChecksum(JSON.stringify(header('b', { cwd: '/hive/user/app' }))))
    db.close()
    const page = await backend.list({ limit: 50 }, signal)
    expect(page.items.map(s => [s.id, s.header.cwd])).toEqual([['c', '/home/user/app'], ['b', '/hive/user/app']])
    expect(page.problems.map(p => [p.sessionId, (p.error as { code?: string }).code, p.error.message])).toEqual([
      ['a', 'SESSION_CORRUPT', expect.stringMatching(/^session "a": header checksum mismatch/)],
    ])
  })
})

describe('P-176 a listing reads each row by column position', () => {
  it('P-176 every summary field comes from its own column, on the first page and on later pages; headers are deep-frozen', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e']
    const { backend, path } = await storeWith(ids, i => 1_700_000_001_000 + i * 1000)
    const db = new Database(path)
    // Distinct values per column, so a value read from a neighbouring column cannot pass.
    db.prepare("UPDATE logbook_sessions SET next_seq = next_seq + 100 * rowid, revision = revision + 1000 * rowid").run()
    const rows = db.prepare('SELECT id, incarnation, next_seq, updated_at, revision, header FROM logbook_sessions').all() as
      { id: string; incarnation: string; next_seq: number; updated_at: number; revision: number; header: string }[]
    db.close()
    const expected = new Map(rows.map(r => [r.id, [r.next_seq, r.updated_at, r.incarnation, r.revision, JSON.parse(r.header)]]))
    const seen: string[] = []
    let page = await backend.list({ limit: 2 }, signal)
    for (;;) {
      for (const s of page.items) {
        seen.push(s.id)
        const [nextSeq, updatedAt, incarnation, revision, stored] = expected.get(s.id)!
        expect([s.eventCount, s.updatedAt, s.header]).toEqual([nextSeq, updatedAt, stored])
        expect(s.revision).toMatch(new RegExp(`^sqlite:[^:]+:${incarnation as string}:${revision as number}$`))
        expect(Object.isFrozen(s.header)).toBe(true)
      }
      if (!page.hasMore) break
      const last = page.items.at(-1)!
      page = await backend.list({ limit: 2, after: { updatedAt: last.updatedAt, id: last.id } }, signal)
    }
    expect(seen).toEqual(['e', 'd', 'c', 'b', 'a'])
  })

  it('P-176 a header failing 01 §5.6 under a valid checksum, and a column that disagrees with the header, are problems with their messages', async () => {
    const { backend, path } = await storeWith(['a', 'b', 'c'], i => 1_700_000_001_000 + i)
    const db = new Database(path)
    const bad = JSON.stringify({ ...header('a'), zz: 1 })
    db.prepare("UPDATE logbook_sessions SET header = ?, crc = ? WHERE id = 'a'").run(bad, recordChecksum(bad))
    db.prepare("UPDATE logbook_sessions SET cwd = '/elsewhere' WHERE id = 'b'").run()
    db.close()
    const page = await backend.list({ limit: 50 }, signal)
    expect(page.items.map(s => s.id)).toEqual(['c'])
    expect(page.problems.map(p => [p.sessionId, (p.error as { code?: string }).code, p.error.message])).toEqual([
      ['b', 'SESSION_CORRUPT', 'session "b": header column cwd ("/elsewhere") differs from the header JSON ("/home/user/app")'],
      ['a', 'SESSION_CORRUPT', 'session "a": session header has unknown field "zz"'],
    ])
    expect((page.problems[1]!.error as Error & { cause?: { code?: string } }).cause?.code).toBe('INVALID_HEADER')
  })
})
