/**
 * Test-only store fixture of the SQLite backend: a fresh 0700 temp directory per store, the `damage` kit of spec
 * 02 §9 (edits `logbook_events`, `logbook_sessions` and `logbook_leases` rows through its own connection) and the
 * `worker` spec for child processes. Never shipped.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { recordChecksum, type LockOwner } from '@logbook/session-persistence'
import { changeOneDigit, rawRecordRow, type DamageKit, type StoreFixture } from '@logbook/session-persistence-conformance'
import SqliteSessionPersistence from '../src/index.ts'

/** The backend module a child process mounts. */
export const PLUGIN_MODULE = fileURLToPath(new URL('../src/index.ts', import.meta.url))

/** A fresh 0700 directory under the system temp directory. */
export function tempDir(prefix = 'logbook-sqlite-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

interface RawRow { seq: number; last_seq: number; kind: string; type: string; time: number; body: string }
interface RawSession { next_seq: number; header: string }

/** Run `fn` on a short-lived connection of its own to the database at `path`. */
export function withDatabase<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { fileMustExist: true, timeout: 5000 })
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

function rowsOf(db: Database.Database, id: string): RawRow[] {
  return db.prepare('SELECT seq, last_seq, kind, type, time, body FROM logbook_events WHERE session_id = ? ORDER BY seq').all(id) as RawRow[]
}

function sessionOf(db: Database.Database, id: string): RawSession {
  const row = db.prepare('SELECT next_seq, header FROM logbook_sessions WHERE id = ?').get(id) as RawSession | undefined
  if (row === undefined) throw new Error(`damage: session ${id} is not stored`)
  return row
}

/** True when the database has the `crc` columns (schema version 2). */
const hasChecksums = (db: Database.Database): boolean => (db.pragma('user_version', { simple: true }) as number) >= 2

/** Store `body` at row `seq` with a matching checksum, as a writer would (`keepChecksum`: leave the old one). */
const setBody = (db: Database.Database, id: string, seq: number, body: string, keepChecksum = false): void => {
  db.prepare('UPDATE logbook_events SET body = ? WHERE session_id = ? AND seq = ?').run(body, id, seq)
  if (hasChecksums(db) && !keepChecksum) {
    db.prepare('UPDATE logbook_events SET crc = ? WHERE session_id = ? AND seq = ?').run(recordChecksum(body), id, seq)
  }
}

/** Store `header` for `id` with a matching checksum (`keepChecksum`: leave the old one). */
const setHeader = (db: Database.Database, id: string, header: string, keepChecksum = false): void => {
  db.prepare('UPDATE logbook_sessions SET header = ?, revision = revision + 1 WHERE id = ?').run(header, id)
  if (hasChecksums(db) && !keepChecksum) db.prepare('UPDATE logbook_sessions SET crc = ? WHERE id = ?').run(recordChecksum(header), id)
}

/** Header fields mirrored in an indexed column, with the column's STRICT type test. */
const HEADER_COLUMNS: Record<string, { column: string; fits: (v: unknown) => boolean }> = {
  version: { column: 'version', fits: v => Number.isSafeInteger(v) },
  createdAt: { column: 'created_at', fits: v => Number.isSafeInteger(v) },
  cwd: { column: 'cwd', fits: v => v === undefined || typeof v === 'string' },
  parentSession: { column: 'parent_session', fits: v => v === undefined || typeof v === 'string' },
}

/** The damage kit of spec 02 §9 for the database at `path` (records = event rows in seq order). */
export function sqliteDamage(path: string): DamageKit {
  return {
    tearLastRecord: (id, keep) => withDatabase(path, db => {
      const last = rowsOf(db, id).at(-1)
      if (last === undefined) throw new Error(`damage: session ${id} has no rows`)
      if (keep < last.body.length) setBody(db, id, last.seq, last.body.slice(0, keep))
      return last.body.length
    }),
    corruptRecord: (id, index, kind) => withDatabase(path, db => {
      const row = rowsOf(db, id)[index]
      if (row === undefined) throw new Error(`damage: session ${id} has no row ${index}`)
      if (kind === 'checksum') {
        setBody(db, id, row.seq, changeOneDigit(row.body), true)
        return
      }
      if (kind === 'garbage') {
        setBody(db, id, row.seq, `#garbage ${row.body.slice(0, 8)}`)
        return
      }
      const value = JSON.parse(row.body) as Record<string, unknown>
      if ('seq0' in value) value.seq0 = row.seq + 1
      else value.seq = row.seq + 1
      setBody(db, id, row.seq, JSON.stringify(value))
    }),
    appendRawRecord: (id, text) => withDatabase(path, db => {
      db.transaction(() => {
        const session = sessionOf(db, id)
        const last = rowsOf(db, id).at(-1)
        const end = Math.max(session.next_seq, last === undefined ? 0 : last.last_seq + 1)
        const row = rawRecordRow(text, end, session.next_seq)
        db.prepare('INSERT INTO logbook_events (session_id, seq, last_seq, kind, type, time, body) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(id, row.firstSeq, row.lastSeq, row.kind, row.type, row.time, text)
        if (hasChecksums(db)) db.prepare('UPDATE logbook_events SET crc = ? WHERE session_id = ? AND seq = ?').run(recordChecksum(text), id, row.firstSeq)
        db.prepare('UPDATE logbook_sessions SET next_seq = max(next_seq, ?), updated_at = coalesce(?, updated_at), revision = revision + 1 WHERE id = ?')
          .run(row.lastSeq + 1, row.extendsAt ?? null, id)
      }).immediate()
    }),
    setHeaderField: (id, key, value) => withDatabase(path, db => {
      const header = JSON.parse(sessionOf(db, id).header) as Record<string, unknown>
      if (value === undefined) delete header[key]
      else header[key] = value
      setHeader(db, id, JSON.stringify(header))
      const mirrored = HEADER_COLUMNS[key]
      if (mirrored?.fits(value) === true) {
        db.prepare(`UPDATE logbook_sessions SET ${mirrored.column} = ? WHERE id = ?`).run(value ?? null, id)
      }
    }),
    corruptHeader: id => withDatabase(path, db => {
      setHeader(db, id, '{"type":"session",')
    }),
    flipHeaderDigit: id => withDatabase(path, db => {
      const text = sessionOf(db, id).header
      setHeader(db, id, text.replace(/"createdAt":(\d*)(\d)/, (_, head: string, digit: string) => `"createdAt":${head}${digit === '9' ? '8' : Number(digit) + 1}`), true)
    }),
    writeLockRecord: (id, holder: LockOwner) => withDatabase(path, db => {
      db.prepare('INSERT OR REPLACE INTO logbook_leases (session_id, owner_id, pid, host, process_start, acquired_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(id, holder.ownerId, holder.pid, holder.host, holder.processStart, holder.acquiredAt)
    }),
  }
}

/**
 * A fresh store for one test: the plugin, its config (`path` in a new 0700 temp directory), the damage kit and the
 * worker spec. `extra` overrides config keys.
 */
export function createSqliteFixture(extra: Record<string, unknown> = {}): StoreFixture & { readonly dir: string; readonly path: string } {
  const dir = tempDir()
  const path = join(dir, 'logbook.sqlite')
  const config = { path, ...extra }
  return {
    plugin: SqliteSessionPersistence,
    config,
    damage: sqliteDamage(path),
    worker: { module: PLUGIN_MODULE, config },
    dir,
    path,
  }
}

/** Remove a fixture's directory. */
export function destroySqliteFixture(fixture: StoreFixture): void {
  rmSync((fixture as unknown as { dir: string }).dir, { recursive: true, force: true })
}
