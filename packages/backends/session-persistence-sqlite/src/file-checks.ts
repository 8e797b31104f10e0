/**
 * File checks of the SQLite store (02 §6 "File checks"): run before the database is opened (create-store.ts makes
 * the file at the first write). Reads never create anything.
 */

import { lstatSync, type Stats } from 'node:fs'
import { dirname } from 'node:path'
import { SessionPersistenceError } from '@logbook/session-persistence'

const POSIX = process.platform !== 'win32'

const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0')

function unsafe(message: string, path: string, details: Record<string, unknown>): SessionPersistenceError {
  return new SessionPersistenceError('STORE_UNSAFE', message, { location: path, details: { path, ...details } })
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new SessionPersistenceError('STORE_IO', `cannot stat ${path}: ${(error as Error).message}`, {
      location: path,
      cause: error,
    })
  }
}

const ownUid = (): number | undefined => (POSIX ? process.getuid?.() : undefined)

/**
 * Check the database path and its parent as 02 §6 demands and report whether the file exists. A directory at the
 * path is refused even with `checkPermissions: false`; a missing parent is allowed (created at the first write).
 * @throws SessionPersistenceError `STORE_UNSAFE` naming the path and its mode; `STORE_IO` when `lstat` fails.
 */
export function checkStorePath(path: string, checkPermissions: boolean): { fileExists: boolean } {
  const parent = dirname(path)
  const parentStat = lstatOrUndefined(parent)
  if (parentStat !== undefined && checkPermissions) {
    if (parentStat.isSymbolicLink()) {
      throw unsafe(`store directory ${parent} is a symlink`, parent, { mode: octal(parentStat.mode) })
    }
    if (!parentStat.isDirectory()) {
      throw unsafe(`store directory ${parent} is not a directory`, parent, { mode: octal(parentStat.mode) })
    }
    const uid = ownUid()
    if (POSIX && uid !== undefined && parentStat.uid !== uid) {
      throw unsafe(`store directory ${parent} is owned by uid ${parentStat.uid}, not ${uid}`, parent, { mode: octal(parentStat.mode) })
    }
    if (POSIX && (parentStat.mode & 0o022) !== 0) {
      throw unsafe(`store directory ${parent} has mode ${octal(parentStat.mode)}; it must not be group- or world-writable`, parent, {
        mode: octal(parentStat.mode),
      })
    }
  }
  const stat = lstatOrUndefined(path)
  if (stat === undefined) return { fileExists: false }
  if (stat.isDirectory()) {
    throw unsafe(`store path ${path} is a directory, not a database file`, path, { mode: octal(stat.mode) })
  }
  if (!checkPermissions) return { fileExists: true }
  if (stat.isSymbolicLink()) throw unsafe(`store file ${path} is a symlink`, path, { mode: octal(stat.mode) })
  if (!stat.isFile()) throw unsafe(`store file ${path} is not a regular file`, path, { mode: octal(stat.mode) })
  const uid = ownUid()
  if (POSIX && uid !== undefined && stat.uid !== uid) {
    throw unsafe(`store file ${path} is owned by uid ${stat.uid}, not ${uid}`, path, { mode: octal(stat.mode) })
  }
  if (POSIX && (stat.mode & 0o077) !== 0) {
    throw unsafe(`store file ${path} has mode ${octal(stat.mode)}; it must not be accessible to group or others`, path, {
      mode: octal(stat.mode),
    })
  }
  return { fileExists: true }
}
