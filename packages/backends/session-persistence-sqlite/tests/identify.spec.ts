/**
 * A database that is not ours is refused before anything changes it (02 §6 "Identity"; P-151): another application's
 * database in rollback-journal or WAL mode, an empty file, an empty SQLite database — each is `STORE_FOREIGN` with
 * its bytes, its journal mode and its directory exactly as they were.
 */

import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from './fixture.ts'
import { header, owner, records, rejection, signal, startBackend, turn } from './helpers.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function freshPath(): string {
  const dir = tempDir()
  dirs.push(dir)
  return join(dir, 'app.db')
}

/** Another application's database at `path` in `mode`, closed (so no -wal or -shm remains). */
function foreignDatabase(path: string, mode: 'delete' | 'wal'): void {
  const db = new Database(path)
  db.pragma(`journal_mode = ${mode}`)
  db.exec('CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (\'keep me\')')
  db.close()
  chmodSync(path, 0o600)
}

/** Assert the start is STORE_FOREIGN and the file and its directory are untouched. */
async function refusedUntouched(path: string, why: RegExp): Promise<void> {
  const bytes = readFileSync(path)
  const names = readdirSync(dirname(path))
  for (const attempt of [() => startBackend(path), () => startBackend(path, { journalMode: 'delete' })]) {
    const error = await rejection(attempt())
    expect(error.code).toBe('STORE_FOREIGN')
    expect(error.message).toContain(path)
    expect(error.message).toMatch(why)
  }
  expect(readFileSync(path).equals(bytes)).toBe(true)
  expect(readdirSync(dirname(path))).toEqual(names)
}

describe('P-151 identify first, change nothing', () => {
  it('P-151 another application\'s database in delete-journal mode: STORE_FOREIGN, still delete-journal, no -wal or -shm, bytes unchanged', async () => {
    const path = freshPath()
    foreignDatabase(path, 'delete')
    await refusedUntouched(path, /not a Logbook store \(application_id 0\)/)
    expect(readFileSync(path)[18]).toBe(1)
  })

  it('P-151 another application\'s database in WAL mode: STORE_FOREIGN without a -wal or -shm left beside it', async () => {
    const path = freshPath()
    foreignDatabase(path, 'wal')
    await refusedUntouched(path, /application_id 0/)
  })

  it('P-151 an empty file, a file that is not SQLite and an empty SQLite database are STORE_FOREIGN; none becomes a store', async () => {
    const empty = freshPath()
    writeFileSync(empty, '', { mode: 0o600 })
    await refusedUntouched(empty, /an empty file/)
    const text = freshPath()
    writeFileSync(text, 'notes, not a database\n'.repeat(10), { mode: 0o600 })
    await refusedUntouched(text, /not an SQLite database/)
    const pristine = freshPath()
    const db = new Database(pristine)
    db.pragma('journal_mode = delete')
    db.exec('CREATE TABLE scratch (x INTEGER); DROP TABLE scratch')
    db.close()
    chmodSync(pristine, 0o600)
    expect(readFileSync(pristine).length).toBeGreaterThan(0)
    await refusedUntouched(pristine, /application_id 0/)
  })

  it('P-151 a missing file is created whole at the first write; a second backend opens the same store', async () => {
    const path = freshPath()
    const first = await startBackend(path)
    const token = await first.lock('s1', owner(), signal)
    await first.materialize(token, header('s1'), records(turn(0)), signal)
    expect(readdirSync(dirname(path)).filter(name => name.endsWith('.creating'))).toEqual([])
    const second = await startBackend(path)
    expect((await second.scan('s1', {}, signal))?.records).toHaveLength(4)
    await second.close()
    await first.close()
  })
})
