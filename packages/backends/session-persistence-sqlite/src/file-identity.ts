/**
 * Identifying an existing database file before anything may change it (02 §6 "Identity"): its first 100 bytes are
 * read as plain bytes, then — only when they may be a Logbook store — its identity is checked on a read-only
 * connection. A file that is not ours (another application's database, an empty file) is refused without a
 * read-write connection ever opening it, so its journal mode, its bytes and its directory stay as they were.
 */

import { closeSync, existsSync, openSync, readSync } from 'node:fs'
import Database from 'better-sqlite3'
import { SessionPersistenceError } from '@logbook/session-persistence'
import { checkIdentity, foreignStore, LOGBOOK_APPLICATION_ID, type StoreIdentity } from './identity.ts'
import { sql } from './sql.ts'

const MAGIC = 'SQLite format 3\0'
const HEADER_BYTES = 100

/** The first `HEADER_BYTES` bytes of the file (fewer for a shorter file). */
function headerOf(path: string): Buffer {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(HEADER_BYTES)
    return buffer.subarray(0, readSync(fd, buffer, 0, HEADER_BYTES, 0))
  } finally {
    closeSync(fd)
  }
}

/**
 * The identity of the existing database file at `path`.
 * @throws SessionPersistenceError `STORE_FOREIGN` (an empty file, not an SQLite database, another application id),
 * `STORE_INCOMPATIBLE` (a Logbook store this build does not read), `STORE_IO`.
 */
export function identifyFile(path: string, busyTimeoutMs: number): StoreIdentity {
  let header: Buffer
  try {
    header = headerOf(path)
  } catch (error) {
    throw new SessionPersistenceError('STORE_IO', `store ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { location: path, cause: error })
  }
  // This build creates a database whole and atomically, so an empty file at the path was made by someone else.
  if (header.length === 0) throw foreignStore(path, 'an empty file; remove it or configure another path')
  if (header.length < HEADER_BYTES || header.toString('latin1', 0, MAGIC.length) !== MAGIC) {
    throw foreignStore(path, 'not an SQLite database')
  }
  const applicationId = header.readUInt32BE(68)
  // The header on disk can lag only behind a WAL that still holds a store's first commit (an older build created
  // stores that way); a store this build creates carries its application id in the file from the start.
  const mayLag = applicationId === 0 && header[18] === 2 && existsSync(`${path}-wal`)
  if (applicationId !== LOGBOOK_APPLICATION_ID && !mayLag) {
    throw foreignStore(path, `application_id ${applicationId}`, { applicationId })
  }
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs })
  try {
    db.prepare(sql('begin-deferred')).run()
    try {
      return checkIdentity(db, path)
    } finally {
      db.prepare(sql('rollback')).run()
    }
  } finally {
    db.close()
  }
}
