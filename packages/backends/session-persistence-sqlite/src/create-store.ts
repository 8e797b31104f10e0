/**
 * Creating the store file at the first write (02 §6 "File checks", "Identity"): the whole database — page size,
 * schema of the current version, identity pragmas, store row — is built in a temp file beside the path (rollback
 * journal, synced), then linked to the path, which never overwrites. A crash leaves no file at the path, so an
 * empty or half-made database there is never one of ours.
 */

import { randomUUID } from 'node:crypto'
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, unlinkSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { SessionPersistenceError } from '@logbook/session-persistence'
import { createSchema } from './identity.ts'
import { NEW_DATABASE_PAGE_SIZE } from './pragmas.ts'
import { sql } from './sql.ts'

const POSIX = process.platform !== 'win32'

function syncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Build a complete store database in the new file `temp` (mode 0600). */
function buildStore(temp: string, durable: boolean): void {
  closeSync(openSync(temp, 'wx', 0o600))
  const db = new Database(temp, { fileMustExist: true })
  try {
    db.pragma(`page_size = ${NEW_DATABASE_PAGE_SIZE}`)
    db.pragma('journal_mode = delete')
    db.pragma(`synchronous = ${durable ? 2 : 1}`)
    db.prepare(sql('begin-immediate')).run()
    createSchema(db, Date.now())
    db.prepare(sql('commit')).run()
  } finally {
    db.close()
  }
  if (durable) syncPath(temp)
}

/**
 * Create the store file at `path` (parents 0700) atomically; `false` when another process created it first (its
 * file is then identified like any existing one).
 * @throws SessionPersistenceError `STORE_IO` when a directory or the file cannot be created.
 */
export function createStoreFile(path: string, durable: boolean): boolean {
  const parent = dirname(path)
  const temp = `${path}.${randomUUID()}.creating`
  try {
    mkdirSync(parent, { recursive: true, mode: 0o700 })
    buildStore(temp, durable)
    try {
      linkSync(temp, path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw error
    }
    if (durable && POSIX) syncPath(parent)
    return true
  } catch (error) {
    throw new SessionPersistenceError('STORE_IO', `cannot create store file ${path}: ${(error as Error).message}`, {
      location: path,
      cause: error,
    })
  } finally {
    try {
      unlinkSync(temp)
    } catch {
      // Not created, or already gone: nothing is left behind.
    }
  }
}
