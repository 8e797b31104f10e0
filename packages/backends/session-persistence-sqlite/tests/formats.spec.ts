/**
 * The two schema versions (02 §6 "Identity", §4.7; P-149, P-150): version 2 stores a checksum on every header and
 * event row; a version-1 database (no checksums) stays readable and writable the old way until `migrate` changes the
 * whole file, in place and in one transaction, after a `VACUUM INTO` copy of the original.
 */

import { chmodSync, existsSync, readdirSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { type SessionEvent } from '@logbook/session'
import { encodeBatch, recordChecksum, type SessionPersistence } from '@logbook/session-persistence'
import { LOGBOOK_APPLICATION_ID } from '../src/identity.ts'
import SqliteSessionPersistence from '../src/index.ts'
import { SCHEMA_STATEMENTS, sql } from '../src/sql.ts'
import { sqliteDamage, tempDir, withDatabase } from './fixture.ts'
import { header, owner, rejection, turn } from './helpers.ts'

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

/** A database as a build without checksums wrote it (schema version 1), holding `sessions`. */
function writeV1Store(path: string, sessions: Record<string, readonly SessionEvent[]>): void {
  const db = new Database(path)
  try {
    db.pragma('journal_mode = wal')
    for (const name of SCHEMA_STATEMENTS) db.exec(sql(name))
    db.pragma(`application_id = ${LOGBOOK_APPLICATION_ID}`)
    db.pragma('user_version = 1')
    db.prepare(sql('insert-store')).run({ storeId: 'v1-store', createdAt: 1 })
    for (const [id, events] of Object.entries(sessions)) {
      const h = header(id)
      db.prepare(sql('insert-session')).run({ id, version: h.version, createdAt: h.createdAt, cwd: h.cwd ?? null, parentSession: null, header: JSON.stringify(h), incarnation: `inc-${id}` })
      for (const r of encodeBatch(events, true)) {
        db.prepare(sql('insert-event')).run({ sessionId: id, seq: r.seq, lastSeq: r.lastSeq, kind: r.kind, type: r.type, time: r.time, body: r.text })
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

describe('P-149 schema version 2', () => {
  it('P-149 a new store is user_version 2; every header and event row carries the CRC-32 of its text', async () => {
    const path = freshPath()
    const persistence = await mount(path)
    const handle = await persistence.create(header('s1'))
    await handle.append([...turn(0), ...turn(6, 2)])
    await handle.close()
    expect(userVersion(path)).toBe(2)
    const rows = rowsOf(path)
    expect(rows).toHaveLength(8)
    for (const row of rows) expect(row.crc).toBe(recordChecksum(row.body))
    withDatabase(path, db => {
      const session = db.prepare('SELECT header, crc FROM logbook_sessions').get() as { header: string; crc: number }
      expect(session.crc).toBe(recordChecksum(session.header))
    })
    expect((await persistence.inspect('s1')).checksums).toBe(true)
  })
})

describe('P-150 schema version 1 until migrate', () => {
  it('P-150 a version-1 database reads and appends without checksums; checksums: false', async () => {
    const path = freshPath()
    writeV1Store(path, { s1: turn(0) })
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

  it('P-150 migrate changes the whole database to version 2 after a VACUUM INTO copy; another connection follows; a second migrate writes nothing', async () => {
    const path = freshPath()
    writeV1Store(path, { s1: turn(0), s2: [...turn(0), ...turn(6, 2)] })
    const persistence = await mount(path)
    const other = await mount(path)
    const result = await persistence.migrate('s2')
    expect(result).toMatchObject({ sessionId: 's2', migrated: true, scope: 'store', sessions: ['s1', 's2'] })
    expect(dirname(result.original!)).toBe(dirname(path))
    expect(basename(result.original!)).toMatch(/^logbook\.sqlite\.\d{8}T\d{6}Z\.v1$/)
    expect(userVersion(path)).toBe(2)
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
    writeV1Store(path, { s1: turn(0), s2: turn(0) })
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
