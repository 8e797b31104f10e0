/**
 * Connection pragmas (02 §6 "Pragmas"): set at open from the validated config and each read back; a value not in
 * effect is `STORE_UNSAFE`. Pragmas take no bound parameters, so their values come only from the closed config
 * enums and validated integers below, never from user text.
 */

import type Database from 'better-sqlite3'
import { SessionPersistenceError } from '@logbook/session-persistence'

/** The connection settings that come from the plugin config. */
export interface PragmaSettings {
  readonly journalMode: 'wal' | 'delete'
  readonly synchronous: 'full' | 'normal'
  readonly busyTimeoutMs: number
}

/** Page size of a database this backend creates: 16 KiB keeps a W-sized row in its leaf (see README, "Row layout"). */
export const NEW_DATABASE_PAGE_SIZE = 16384

const SYNCHRONOUS_LEVEL = { full: 2, normal: 1 } as const

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'))
}

function readBack(db: Database.Database, name: string): unknown {
  return db.pragma(name, { simple: true })
}

function mismatch(path: string, name: string, wanted: unknown, actual: unknown): SessionPersistenceError {
  return new SessionPersistenceError(
    'STORE_UNSAFE',
    `store ${path}: pragma ${name} is ${String(actual)}, expected ${String(wanted)}`,
    { location: path, details: { pragma: name, expected: wanted, actual } },
  )
}

/**
 * Switch the journal mode, retrying `SQLITE_BUSY` every 10 ms until `busyTimeoutMs` has elapsed (another connection
 * may hold the database while the mode changes).
 */
function setJournalMode(db: Database.Database, mode: string, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs
  for (;;) {
    try {
      db.pragma(`journal_mode = ${mode}`)
      return
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error
      sleep(10)
    }
  }
}

/**
 * The page cache, in SQLite's unit for a negative value (KiB): 2 MiB, SQLite's own default (the bundled build raises
 * it to 16 MiB). A resume reads a session's rows once, in order, so a cache as large as the log only raises the
 * process's peak memory by the log's size; appends and listings touch few pages.
 */
const CACHE_SIZE = -2048

/**
 * Apply and verify every pragma of 02 §6 on a freshly opened connection to a store of ours (a new file gets its page
 * size when it is built, create-store.ts).
 * @throws SessionPersistenceError `STORE_UNSAFE` when a pragma does not read back as set.
 */
export function applyPragmas(db: Database.Database, path: string, settings: PragmaSettings): void {
  const memory = path === ':memory:'
  const busy = Math.trunc(settings.busyTimeoutMs)
  db.pragma(`busy_timeout = ${busy}`)
  const busyActual = readBack(db, 'busy_timeout')
  if (busyActual !== busy) throw mismatch(path, 'busy_timeout', busy, busyActual)

  const journal = settings.journalMode === 'wal' ? 'wal' : 'delete'
  setJournalMode(db, journal, busy)
  const journalActual = readBack(db, 'journal_mode')
  if (journalActual !== journal && !(memory && journalActual === 'memory')) {
    throw mismatch(path, 'journal_mode', journal, journalActual)
  }

  const level = SYNCHRONOUS_LEVEL[settings.synchronous]
  db.pragma(`synchronous = ${level}`)
  const syncActual = readBack(db, 'synchronous')
  if (syncActual !== level) throw mismatch(path, 'synchronous', level, syncActual)

  db.pragma('foreign_keys = ON')
  const fk = readBack(db, 'foreign_keys')
  if (fk !== 1) throw mismatch(path, 'foreign_keys', 1, fk)

  db.pragma('trusted_schema = OFF')
  const trusted = readBack(db, 'trusted_schema')
  if (trusted !== 0) throw mismatch(path, 'trusted_schema', 0, trusted)

  db.pragma(`cache_size = ${CACHE_SIZE}`)
  const cache = readBack(db, 'cache_size')
  if (cache !== CACHE_SIZE) throw mismatch(path, 'cache_size', CACHE_SIZE, cache)

  db.pragma('mmap_size = 0')
  const mmap = readBack(db, 'mmap_size')
  // an in-memory database has no file to map: SQLite reports no mmap_size at all
  if (mmap !== 0 && !(memory && mmap === undefined)) throw mismatch(path, 'mmap_size', 0, mmap)
}
