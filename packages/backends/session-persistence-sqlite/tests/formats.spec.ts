/**
 * The schema versions (02 §6 "Identity", §4.7; P-149, P-150, P-184): version 3 stores a checksum on every header and
 * event row and keeps event rows in a rowid table; a version-1 database (no checksums) and a version-2 one (checksums,
 * event rows clustered on their key) stay readable and writable the old way until `migrate` changes the whole file,
 * in place and in one transaction, after a `VACUUM INTO` copy of the original.
 */

import { chmodSync, existsSync, readdirSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { type SessionEvent } from '@logbook/session'
import { encodeBatch, recordChecksum, type SessionPersistence } from '@logbook/session-persistence'
import { LOGBOOK_APPLICATION_ID, schemaSteps } from '../src/identity.ts'
import SqliteSessionPersistence from '../src/index.ts'
import { sql, versioned } from '../src/sql.ts'
import { sqliteDamage, tempDir, withDatabase } from './fixture.ts'
import { header, owner, records, rejection, signal, startBackend, turn } from './helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function mount(path: string): Promise<SessionPersistence> {
  const app = new Context()
  const store = app.plugin(SessionStore)
  await store
  const fiber = app.plugin(SqliteSessionPersistence, { path, writeBatchMaxDelayMs: 5 })
  await fiber
  cleanups.push(async () => {
    await fiber.dispose()
    await store.dispose()
  })
  return app.get('sessionPersistence') as SessionPersistence
}

function freshPath(): string {
  const dir = tempDir()
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return join(dir, 'logbook.sqlite')
}

/**
 * A database as an older build wrote it, holding `sessions`: schema version 1 (no checksums) or 2 (checksums, event
 * rows clustered on `(session_id, seq)`).
 */
function writeOldStore(path: string, version: 1 | 2, sessions: Record<string, readonly SessionEvent[]>): void {
  const db = new Database(path)
  try {
    db.pragma('journal_mode = wal')
    for (const name of schemaSteps(version)) db.exec(sql(name))
    db.pragma(`application_id = ${LOGBOOK_APPLICATION_ID}`)
    db.pragma(`user_version = ${version}`)
    db.prepare(sql('insert-store')).run({ storeId: `v${version}-store`, createdAt: 1 })
    const crc = (text: string) => (version === 1 ? {} : { crc: recordChecksum(text) })
    for (const [id, events] of Object.entries(sessions)) {
      const h = header(id)
      const text = JSON.stringify(h)
      db.prepare(sql(versioned('insert-session', version))).run({ id, version: h.version, createdAt: h.createdAt, cwd: h.cwd ?? null, parentSession: null, header: text, incarnation: `inc-${id}`, ...crc(text) })
      for (const r of encodeBatch(events, true)) {
        db.prepare(sql(versioned('insert-event', version))).run({ sessionId: id, seq: r.seq, lastSeq: r.lastSeq, kind: r.kind, type: r.type, time: r.time, body: r.text, ...crc(r.text) })
      }
      const last = events.at(-1)!
      db.prepare(sql('update-session-cursor')).run({ id, nextSeq: last.seq + 1, updatedAt: last.time })
    }
  } finally {
    db.close()
  }
  chmodSync(path, 0o600)
}

const userVersion = (path: string): number => withDatabase(path, db => db.pragma('user_version', { simple: true }) as number)
const rowsOf = (path: string): { seq: number; body: string; crc?: number | null }[] =>
  withDatabase(path, db => db.prepare('SELECT * FROM logbook_events ORDER BY session_id, seq').all() as never)
/** Whether `logbook_events` is a `WITHOUT ROWID` table, clustered on its primary key (schema versions 1 and 2). */
const clustered = (path: string): boolean =>
  withDatabase(path, db => (db.prepare("SELECT wr FROM pragma_table_list WHERE name = 'logbook_events'").get() as { wr: number }).wr === 1)

describe('P-149 schema version 3', () => {
  it('P-149 a new store is user_version 3; every header and event row carries the CRC-32 of its text', async () => {
    const path = freshPath()
    const persistence = await mount(path)
    const handle = await persistence.create(header('s1'))
    await handle.append([...turn(0), ...turn(6, 2)])
    await handle.close()
    expect(userVersion(path)).toBe(3)
    const rows = rowsOf(path)
    expect(rows).toHaveLength(8)
    for (const row of rows) expect(row.crc).toBe(recordChecksum(row.body))
    withDatabase(path, db => {
      const session = db.prepare('SELECT header, crc FROM logbook_sessions').get() as { header: string; crc: number }
      expect(session.crc).toBe(recordChecksum(session.header))
    })
    expect((await persistence.inspect('s1')).checksums).toBe(true)
    expect(await persistence.migrate('s1')).toEqual({ sessionId: 's1', migrated: false, sessions: [] })
  })

  it('P-149 event rows sit in a rowid table in the order they were committed, with a unique index on (session_id, seq)', async () => {
    const path = freshPath()
    const persistence = await mount(path)
    const a = await persistence.create(header('a'))
    const b = await persistence.create(header('b'))
    await a.append(turn(0))
    await b.append(turn(0))
    await a.append(turn(6, 2))
    await Promise.all([a.close(), b.close()])
    expect(clustered(path)).toBe(false)
    withDatabase(path, db => {
      const byRowid = db.prepare('SELECT session_id, seq FROM logbook_events ORDER BY rowid').all() as { session_id: string; seq: number }[]
      expect(byRowid.map(r => `${r.session_id}${r.seq}`)).toEqual(['a0', 'a1', 'a2', 'a5', 'b0', 'b1', 'b2', 'b5', 'a6', 'a7', 'a8', 'a11'])
      expect(db.prepare("SELECT \"unique\" FROM pragma_index_list('logbook_events') WHERE name = 'logbook_events_by_seq'").pluck().get()).toBe(1)
      expect(db.prepare("SELECT name FROM pragma_index_info('logbook_events_by_seq') ORDER BY seqno").pluck().all()).toEqual(['session_id', 'seq'])
    })
  })
})

describe('P-150 schema version 1 until migrate', () => {
  it('P-150 a version-1 database reads and appends without checksums; checksums: false', async () => {
    const path = freshPath()
    writeOldStore(path, 1, { s1: turn(0) })
    const persistence = await mount(path)
    const inspection = await persistence.inspect('s1')
    expect(inspection.checksums).toBe(false)
    expect(inspection.events).toEqual(turn(0))
    const handle = await persistence.open('s1', 'write')
    await handle.append(turn(6, 2))
    await handle.close()
    expect(userVersion(path)).toBe(1)
    expect(rowsOf(path).every(row => row.crc === undefined)).toBe(true)
    expect((await persistence.readFrom('s1', 0))).toHaveLength(12)
  })

  it('P-150 migrate changes the whole database to version 3 after a VACUUM INTO copy; another connection follows; a second migrate writes nothing', async () => {
    const path = freshPath()
    writeOldStore(path, 1, { s1: turn(0), s2: [...turn(0), ...turn(6, 2)] })
    const persistence = await mount(path)
    const other = await mount(path)
    const result = await persistence.migrate('s2')
    expect(result).toMatchObject({ sessionId: 's2', migrated: true, scope: 'store', sessions: ['s1', 's2'] })
    expect(dirname(result.original!)).toBe(dirname(path))
    expect(basename(result.original!)).toMatch(/^logbook\.sqlite\.\d{8}T\d{6}Z\.v1$/)
    expect(userVersion(path)).toBe(3)
    expect(clustered(path)).toBe(false)
    for (const row of rowsOf(path)) expect(row.crc).toBe(recordChecksum(row.body))
    expect(userVersion(result.original!)).toBe(1)
    expect(rowsOf(result.original!).map(r => r.body)).toEqual(rowsOf(path).map(r => r.body))
    expect((await persistence.inspect('s2')).checksums).toBe(true)
    expect((await persistence.inspect('s2')).events).toEqual([...turn(0), ...turn(6, 2)])
    const writer = await other.open('s1', 'write')
    await writer.append(turn(6, 2))
    await writer.close()
    for (const row of rowsOf(path)) expect(row.crc).toBe(recordChecksum(row.body))
    expect(await persistence.migrate('s1')).toEqual({ sessionId: 's1', migrated: false, sessions: [] })
  })

  it('P-150 migrate is refused while another owner holds a session, or when a session is corrupt; nothing changes, no copy is left', async () => {
    const path = freshPath()
    writeOldStore(path, 1, { s1: turn(0), s2: turn(0) })
    const persistence = await mount(path)
    sqliteDamage(path).writeLockRecord('s2', owner())
    expect((await rejection(persistence.migrate('s1'))).code).toBe('SESSION_LOCKED')
    withDatabase(path, db => db.prepare('DELETE FROM logbook_leases').run())
    sqliteDamage(path).corruptRecord('s2', 1, 'garbage')
    const corrupt = await rejection(persistence.migrate('s1'))
    expect(corrupt).toMatchObject({ code: 'SESSION_CORRUPT', sessionId: 's2', seq: 1 })
    expect(userVersion(path)).toBe(1)
    expect(readdirSync(dirname(path)).filter(name => name.includes('.v1'))).toEqual([])
    expect(existsSync(path)).toBe(true)
  })
})

describe('P-184 schema version 2 until migrate', () => {
  it('P-184 a version-2 database reads and appends with checksums and keeps its clustered rows; a row stored twice is SESSION_CONFLICT', async () => {
    const path = freshPath()
    writeOldStore(path, 2, { s1: turn(0) })
    const persistence = await mount(path)
    const inspection = await persistence.inspect('s1')
    expect(inspection.checksums).toBe(true)
    expect(inspection.events).toEqual(turn(0))
    const handle = await persistence.open('s1', 'write')
    await handle.append(turn(6, 2))
    await handle.close()
    expect([userVersion(path), clustered(path)]).toEqual([2, true])
    for (const row of rowsOf(path)) expect(row.crc).toBe(recordChecksum(row.body))
    expect(await persistence.readFrom('s1', 0)).toHaveLength(12)
    // the key of a clustered table refuses the second row, as the unique index of version 3 does
    const backend = await startBackend(path)
    cleanups.push(() => backend.close())
    expect((await backend.scan('s1', {}, signal))!.outdatedLayout).toBe(true)
    const token = await backend.lock('s2', owner(), signal)
    const commit = await backend.materialize(token, header('s2'), records(turn(0)), signal)
    const [seq6] = records(turn(6, 2))
    const clash = await rejection(backend.append(token, commit, [seq6!, seq6!], signal))
    expect([clash.code, clash.message]).toEqual(['SESSION_CONFLICT', 'session "s2": a row is already stored at seq 6'])
    expect(rowsOf(path).filter(row => (row as { session_id?: string }).session_id === 's2')).toHaveLength(4)
  })

  it('P-184 migrate rebuilds a version-2 database as version 3 after a VACUUM INTO copy (.v2); every row kept byte for byte; another connection follows', async () => {
    const path = freshPath()
    writeOldStore(path, 2, { s1: turn(0), s2: [...turn(0), ...turn(6, 2)] })
    const before = rowsOf(path)
    const persistence = await mount(path)
    const other = await mount(path)
    const result = await persistence.migrate('s1')
    expect(result).toMatchObject({ sessionId: 's1', migrated: true, scope: 'store', sessions: ['s1', 's2'] })
    expect(basename(result.original!)).toMatch(/^logbook\.sqlite\.\d{8}T\d{6}Z\.v2$/)
    expect([userVersion(path), clustered(path)]).toEqual([3, false])
    expect(rowsOf(path)).toEqual(before)
    expect([userVersion(result.original!), clustered(result.original!)]).toEqual([2, true])
    expect(rowsOf(result.original!)).toEqual(before)
    const backend = await startBackend(path)
    cleanups.push(() => backend.close())
    expect((await backend.scan('s1', {}, signal))!.outdatedLayout).toBeUndefined()
    expect((await persistence.inspect('s2')).events).toEqual([...turn(0), ...turn(6, 2)])
    const writer = await other.open('s1', 'write')
    await writer.append(turn(6, 2))
    await writer.close()
    expect(rowsOf(path)).toHaveLength(before.length + 4)
    for (const row of rowsOf(path)) expect(row.crc).toBe(recordChecksum(row.body))
    expect(await persistence.migrate('s2')).toEqual({ sessionId: 's2', migrated: false, sessions: [] })
  })

  it('P-184 a corrupt session refuses the migration of a version-2 database: still version 2, rows unchanged, no copy left', async () => {
    const path = freshPath()
    writeOldStore(path, 2, { s1: turn(0), s2: turn(0) })
    const persistence = await mount(path)
    sqliteDamage(path).corruptRecord('s2', 1, 'garbage')
    const before = rowsOf(path)
    const corrupt = await rejection(persistence.migrate('s1'))
    expect(corrupt).toMatchObject({ code: 'SESSION_CORRUPT', sessionId: 's2', seq: 1 })
    expect([userVersion(path), clustered(path)]).toEqual([2, true])
    expect(rowsOf(path)).toEqual(before)
    expect(readdirSync(dirname(path)).filter(name => name.includes('.v2'))).toEqual([])
  })
})
