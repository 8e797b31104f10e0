/**
 * The SQLite backend hooks (02 §1.4, §3.4, §6): lease, append transaction, defects, cut, seek reads, listing and
 * checkpoints, driven directly (the coordinator's behaviour is covered by the conformance suite).
 */

import { rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ScanRecord } from '@logbook/session-persistence'
import { SCAN_PAGE_ROWS } from '../src/scan.ts'
import { schemaSteps } from '../src/identity.ts'
import { sql } from '../src/sql.ts'
import type { SqliteBackend } from '../src/backend.ts'
import { sqliteDamage, tempDir, withDatabase } from './fixture.ts'
import { deadOwner, header, owner, records, rejection, scalars, signal, startBackend, turn } from './helpers.ts'

let dir: string
let path: string
let backend: SqliteBackend

beforeEach(async () => {
  dir = tempDir()
  path = join(dir, 'logbook.sqlite')
  backend = await startBackend(path)
})
afterEach(async () => {
  await backend.close()
  rmSync(dir, { recursive: true, force: true })
})

const firstDefect = (recs: readonly ScanRecord<number>[]) => recs.find(r => !r.result.ok)

async function stored(id: string, events = turn(0)) {
  const token = await backend.lock(id, owner(), signal)
  const commit = await backend.materialize(token, header(id), records(events), signal)
  return { token, commit }
}

describe('lease', () => {
  it('a second owner is refused with the holder; a dead holder is taken over; unlock releases', async () => {
    const first = owner()
    const token = await backend.lock('s1', first, signal)
    const error = await rejection(backend.lock('s1', owner(), signal))
    expect(error.code).toBe('SESSION_LOCKED')
    expect(error.details).toMatchObject({ holder: { scope: 'process', pid: process.pid, ownerId: first.ownerId, sameHost: true } })
    await backend.unlock(token, signal)
    expect(await backend.readLock('s1', signal)).toBeUndefined()

    sqliteDamage(path).writeLockRecord('s2', deadOwner())
    const taker = owner()
    await backend.lock('s2', taker, signal)
    expect((await backend.readLock('s2', signal))?.holder?.ownerId).toBe(taker.ownerId)
  })

  it('a broken lease makes the next write fail SESSION_LOCKED lost, writing nothing', async () => {
    const { token, commit } = await stored('s1')
    await backend.breakLock('s1', token.owner.ownerId, signal)
    const error = await rejection(backend.append(token, commit, records(turn(6, 2)), signal))
    expect(error.code).toBe('SESSION_LOCKED')
    expect(error.details).toMatchObject({ lost: true })
    expect((await rejection(backend.verifyLock(token, signal))).code).toBe('SESSION_LOCKED')
    expect((await backend.scan('s1', {}, signal))?.revision).toBe(commit.revision)
  })

  it('breakLock with another owner id is SESSION_CONFLICT; with no lease it resolves', async () => {
    await backend.lock('s1', owner(), signal)
    expect((await rejection(backend.breakLock('s1', 'someone-else', signal))).code).toBe('SESSION_CONFLICT')
    expect((await rejection(backend.breakLock('s1', null, signal))).code).toBe('SESSION_CONFLICT')
    await backend.breakLock('nobody', 'x', signal)
  })
})

describe('P-172 the append reads the lease and the session cursor in one statement', () => {
  it('P-172 a lease rewritten to another owner: SESSION_LOCKED lost naming that holder, nothing written', async () => {
    const { token, commit } = await stored('s1')
    withDatabase(path, db => db.prepare("UPDATE logbook_leases SET owner_id = 'other-owner', pid = 4242 WHERE session_id = 's1'").run())
    const error = await rejection(backend.append(token, commit, records(turn(6, 2)), signal))
    expect(error.code).toBe('SESSION_LOCKED')
    expect(error.message).toBe('session "s1": the write lock was lost; nothing was written')
    expect(error.details).toMatchObject({ lost: true, holder: { ownerId: 'other-owner', pid: 4242 } })
    expect((await backend.scan('s1', {}, signal))?.revision).toBe(commit.revision)
  })

  it('P-172 no lease row (the session stored): SESSION_LOCKED lost with no holder, nothing written', async () => {
    const { token, commit } = await stored('s1')
    withDatabase(path, db => db.prepare("DELETE FROM logbook_leases WHERE session_id = 's1'").run())
    const error = await rejection(backend.append(token, commit, records(turn(6, 2)), signal))
    expect(error.code).toBe('SESSION_LOCKED')
    expect(error.details).toEqual({ lost: true })
    expect((await backend.scan('s1', {}, signal))?.revision).toBe(commit.revision)
  })

  it('P-172 the lease held but the session row gone, or re-created: SESSION_CONFLICT deleted (re-created) underneath', async () => {
    const { token, commit } = await stored('s1')
    withDatabase(path, db => db.prepare("UPDATE logbook_sessions SET incarnation = 'another' WHERE id = 's1'").run())
    const recreated = await rejection(backend.append(token, commit, records(turn(6, 2)), signal))
    expect(recreated.code).toBe('SESSION_CONFLICT')
    expect(recreated.message).toBe('session "s1": the session was deleted and re-created underneath (incarnation differs)')
    withDatabase(path, db => {
      db.prepare("DELETE FROM logbook_events WHERE session_id = 's1'").run()
      db.prepare("DELETE FROM logbook_sessions WHERE id = 's1'").run()
    })
    const deleted = await rejection(backend.append(token, commit, records(turn(6, 2)), signal))
    expect(deleted.code).toBe('SESSION_CONFLICT')
    expect(deleted.message).toBe('session "s1": the session was deleted underneath')
    expect(await backend.scan('s1', {}, signal)).toBeUndefined()
  })
})

describe('append and scan', () => {
  it('materialize then append store packed rows; scan decodes them; revision is sqlite:<store>:<incarnation>:<n>', async () => {
    const { token, commit } = await stored('s1')
    expect(commit).toMatchObject({ nextSeq: 6, physicalLength: 4 })
    expect(commit.revision).toMatch(/^sqlite:[0-9a-f-]{36}:[0-9a-f-]{36}:1$/)
    const second = await backend.append(token, commit, records(turn(6, 2)), signal)
    expect(second).toMatchObject({ nextSeq: 12, physicalLength: 8 })
    expect(second.revision.endsWith(':2')).toBe(true)
    const scan = (await backend.scan('s1', {}, signal))!
    expect(scan.revision).toBe(second.revision)
    expect(scan.records.map(r => r.marker)).toEqual([0, 1, 2, 5, 6, 7, 8, 11])
    expect(scan.records.flatMap(r => (r.result.ok ? r.result.events.map(e => e.seq) : []))).toEqual([...Array(12).keys()])
    expect(backend.eventState).toBe('detached')
    expect(scan.location).toBe(path)
  })

  it('P-185 revision() is the revision a scan reports, from the session row; it follows appends and a delete', async () => {
    const fresh = await startBackend(join(dir, 'none.sqlite'))
    expect(await fresh.revision('s1', signal)).toBeUndefined() // no database file yet
    await fresh.close()
    const { token, commit } = await stored('s1')
    expect(await backend.revision('s1', signal)).toBe(commit.revision)
    const second = await backend.append(token, commit, records(turn(6, 2)), signal)
    expect(await backend.revision('s1', signal)).toBe(second.revision)
    expect((await backend.scan('s1', {}, signal))!.revision).toBe(second.revision)
    expect(await backend.revision('missing', signal)).toBeUndefined()
    await backend.remove(token, second.revision, signal)
    expect(await backend.revision('s1', signal)).toBeUndefined()
  })

  it('materialize over a stored id is SESSION_ALREADY_EXISTS', async () => {
    const { token } = await stored('s1')
    expect((await rejection(backend.materialize(token, header('s1'), records(turn(0)), signal))).code).toBe('SESSION_ALREADY_EXISTS')
  })

  it('P-104 rows inserted behind a writer’s back → SESSION_CONFLICT "stored next seq is N"; nothing written', async () => {
    const { token, commit } = await stored('s1')
    sqliteDamage(path).appendRawRecord('s1', JSON.stringify(scalars(6, 1)[0]))
    const error = await rejection(backend.append(token, commit, records(turn(6, 2)), signal))
    expect(error.code).toBe('SESSION_CONFLICT')
    expect(error.message).toContain('stored next seq is 7')
    withDatabase(path, db => expect(db.prepare('SELECT count(*) AS n FROM logbook_events').get()).toEqual({ n: 5 }))
  })

  it('a wrong first seq is SESSION_CONFLICT and leaves the rows alone', async () => {
    const { token, commit } = await stored('s1')
    const error = await rejection(backend.append(token, { ...commit, nextSeq: 7 }, records(turn(7, 2)), signal))
    expect(error.code).toBe('SESSION_CONFLICT')
    expect(error.message).toContain('stored next seq is 6')
  })

  it('a body that disagrees with its columns, rows beyond next_seq and missing rows are defects', async () => {
    await stored('s1', [...turn(0), ...scalars(6, 3)])
    const damage = sqliteDamage(path)
    damage.corruptRecord('s1', 5, 'seq-gap')
    let scan = (await backend.scan('s1', {}, signal))!
    expect(firstDefect(scan.records)).toMatchObject({ marker: 7, result: { ok: false } })

    withDatabase(path, db => db.prepare('UPDATE logbook_sessions SET next_seq = 7 WHERE id = ?').run('s1'))
    scan = (await backend.scan('s1', {}, signal))!
    expect(firstDefect(scan.records)).toMatchObject({ marker: 7 })
    expect((firstDefect(scan.records)!.result as { reason: string }).reason).toMatch(/beyond the stored next seq 7/)

    withDatabase(path, db => db.prepare('UPDATE logbook_sessions SET next_seq = 12 WHERE id = ?').run('s1'))
    damage.corruptRecord('s1', 5, 'garbage')
    withDatabase(path, db => db.prepare('UPDATE logbook_events SET body = ? WHERE seq = 7').run(JSON.stringify(scalars(7, 1)[0])))
    scan = (await backend.scan('s1', {}, signal))!
    expect(scan.records.at(-1)).toMatchObject({ marker: 9, result: { ok: false } })
    expect((scan.records.at(-1)!.result as { reason: string }).reason).toMatch(/missing/)
  })

  it('a header column that disagrees with the header JSON is reported as a header problem', async () => {
    await stored('s1')
    withDatabase(path, db => db.prepare("UPDATE logbook_sessions SET cwd = '/elsewhere' WHERE id = 's1'").run())
    const scan = (await backend.scan('s1', {}, signal))!
    expect(scan.headerProblem).toMatch(/cwd/)
  })
})

describe('cut', () => {
  it('cuts the first defect and everything after it, with checkpoints at or beyond it', async () => {
    const { token } = await stored('s1', [...turn(0), ...scalars(6, 4)])
    await backend.writeCheckpoint(token, 's1', { sessionId: 's1', seq: 8, anchor: { time: 1, type: 'todo/write' }, rows: {} }, signal)
    sqliteDamage(path).tearLastRecord('s1', 5)
    sqliteDamage(path).corruptRecord('s1', 5, 'garbage')
    const scan = (await backend.scan('s1', {}, signal))!
    const defect = firstDefect(scan.records)!
    expect(defect.marker).toBe(7)
    const result = await backend.cut(token, defect.marker, { nextSeq: 10, revision: scan.revision }, signal)
    expect(result).toMatchObject({ nextSeq: 7, physicalLength: 5 })
    expect(await backend.readCheckpoint('s1', signal)).toBeUndefined()
    const after = (await backend.scan('s1', {}, signal))!
    expect(firstDefect(after.records)).toBeUndefined()
    expect(after.revision).toBe(result.revision)
  })

  it('P-104 a cut at a marker that starts no record, or past the log, → SESSION_CONFLICT "repair is stale"; a stale revision too; nothing deleted', async () => {
    const { token, commit } = await stored('s1', [...turn(0), ...scalars(6, 4)])
    expect((await rejection(backend.cut(token, 6, { ...commit, revision: `${commit.revision}0` }, signal))).code).toBe('SESSION_CONFLICT')
    for (const marker of [3, 4, 11, 12, -1]) {
      const error = await rejection(backend.cut(token, marker, commit, signal))
      expect(error.code).toBe('SESSION_CONFLICT')
      expect(error.message).toContain('repair is stale')
    }
    withDatabase(path, db => expect(db.prepare('SELECT count(*) AS n FROM logbook_events').get()).toEqual({ n: 8 }))
  })
})

describe('seek reads', () => {
  it('the seek query walks the primary key from s − 1023, never the whole table', () => {
    const db = new Database(':memory:')
    for (const name of ['create-table-sessions', 'create-table-events'] as const) db.exec(sql(name))
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql('select-events-from')}`).all({ sessionId: 'big', fromSeq: 1 }) as { detail: string }[]
    expect(plan.map(p => p.detail).join('\n')).toMatch(/SEARCH logbook_events USING PRIMARY KEY \(session_id=\? AND seq>\?\)/)
    db.close()
  })

  it('a seek starts at the packed row covering fromSeq', async () => {
    await stored('s1', [...turn(0), ...turn(6, 2)])
    const scan = (await backend.scan('s1', { fromSeq: 9 }, signal))!
    expect(scan.startSeq).toBe(8)
    expect(scan.records[0]!.marker).toBe(8)
  })
})

describe('P-183 a scan reads its rows a page at a time', () => {
  const seqsOf = (recs: readonly ScanRecord<number>[]) => recs.flatMap(r => (r.result.ok ? r.result.events.map(e => e.seq) : []))
  const rowsTotal = 2 * SCAN_PAGE_ROWS + 7

  it('P-183 the page query searches the key from fromSeq in every layout: the primary key (versions 1–2), the unique index (3)', () => {
    const layouts = [
      { version: 2, search: 'PRIMARY KEY' },
      { version: 3, search: 'INDEX logbook_events_by_seq' },
    ] as const
    for (const { version, search } of layouts) {
      const db = new Database(':memory:')
      for (const name of schemaSteps(version)) db.exec(sql(name))
      for (const name of ['select-events-page', 'select-events-page-v2'] as const) {
        const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql(name)}`).all({ sessionId: 'big', fromSeq: 1, limit: 2 }) as { detail: string }[]
        expect(plan.map(p => p.detail).join('\n')).toBe(`SEARCH logbook_events USING ${search} (session_id=? AND seq>?)`)
      }
      db.close()
    }
  })

  it('P-183 a log of more than two pages scans every row once, in order, and a seek into the third page starts there', async () => {
    await stored('s1', scalars(0, rowsTotal))
    const scan = (await backend.scan('s1', {}, signal))!
    expect(scan.records).toHaveLength(rowsTotal)
    expect(scan.records.map(r => r.marker)).toEqual([...Array(rowsTotal).keys()])
    expect(seqsOf(scan.records)).toEqual([...Array(rowsTotal).keys()])
    expect(scan.physicalLength).toBe(rowsTotal)
    const seek = (await backend.scan('s1', { fromSeq: 2 * SCAN_PAGE_ROWS + 3 }, signal))!
    expect(seek.startSeq).toBe(2 * SCAN_PAGE_ROWS + 3)
    expect(seqsOf(seek.records)).toEqual([...Array(4).keys()].map(i => 2 * SCAN_PAGE_ROWS + 3 + i))
  })

  it('P-183 a row missing at a page boundary leaves a gap at its seq, and every row after it still scans', async () => {
    await stored('s1', scalars(0, rowsTotal))
    withDatabase(path, db => db.prepare("DELETE FROM logbook_events WHERE session_id = 's1' AND seq = ?").run(SCAN_PAGE_ROWS))
    const scan = (await backend.scan('s1', {}, signal))!
    const expected = [...Array(rowsTotal).keys()].filter(seq => seq !== SCAN_PAGE_ROWS)
    expect(seqsOf(scan.records)).toEqual(expected)
    // A record's marker is where it starts reading: the row after the gap starts at the missing seq.
    expect(scan.records.map(r => r.marker)).toEqual(expected.map(seq => (seq === SCAN_PAGE_ROWS + 1 ? SCAN_PAGE_ROWS : seq)))
  })
})

describe('listing and checkpoints', () => {
  it('lists newest first with keyset pagination and reports bad headers on the first page only', async () => {
    for (const id of ['a', 'b', 'c']) await stored(id)
    withDatabase(path, db => db.prepare("UPDATE logbook_sessions SET header = 'nope' WHERE id = 'b'").run())
    const first = await backend.list({ limit: 1 }, signal)
    expect(first.items.map(i => i.id)).toEqual(['a'])
    expect(first.hasMore).toBe(true)
    expect(first.problems.map(p => p.sessionId)).toEqual(['b'])
    const next = await backend.list({ limit: 1, after: { updatedAt: first.items[0]!.updatedAt, id: 'a' } }, signal)
    expect(next).toMatchObject({ items: [{ id: 'c', eventCount: 6 }], hasMore: false, problems: [] })
  })

  it('remove deletes session, rows, checkpoint and lease in one transaction', async () => {
    const { token, commit } = await stored('s1')
    await backend.writeCheckpoint(token, 's1', { sessionId: 's1', seq: 2, anchor: { time: 1, type: 'x/y' }, rows: {} }, signal)
    expect((await rejection(backend.remove(token, 'sqlite:stale', signal))).code).toBe('SESSION_CONFLICT')
    await backend.remove(token, commit.revision, signal)
    withDatabase(path, db => {
      for (const table of ['logbook_sessions', 'logbook_events', 'logbook_leases', 'logbook_projection_checkpoints']) {
        expect(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()).toEqual({ n: 0 })
      }
    })
  })

  it('a checkpoint at or beyond next_seq is CHECKPOINT_AHEAD', async () => {
    const { token } = await stored('s1')
    const error = await rejection(backend.writeCheckpoint(token, 's1', { sessionId: 's1', seq: 6, anchor: { time: 1, type: 'x/y' }, rows: {} }, signal))
    expect(error.code).toBe('CHECKPOINT_AHEAD')
  })

  it('a second connection sees the first one’s commits (one database, two instances)', async () => {
    await stored('s1')
    const other = await startBackend(path)
    expect((await other.scan('s1', {}, signal))?.records).toHaveLength(4)
    await other.close()
    expect(new Database(path).pragma('journal_mode', { simple: true })).toBe('wal')
  })
})
