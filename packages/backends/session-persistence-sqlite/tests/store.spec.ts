/**
 * The SQLite store itself (02 §6): pragmas read back, identity, foreign and incompatible databases, busy handling and
 * file checks — the [S] items P-101, P-102, P-103 and P-105, against the backend hooks.
 */

import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { createStoreFile } from '../src/create-store.ts'
import { LOGBOOK_APPLICATION_ID } from '../src/identity.ts'
import { applyPragmas } from '../src/pragmas.ts'
import { tempDir, withDatabase } from './fixture.ts'
import { header, owner, records, rejection, signal, startBackend, thrown, turn } from './helpers.ts'
import type { SqliteBackend } from '../src/backend.ts'

const dirs: string[] = []
const backends: SqliteBackend[] = []
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function newPath(): { dir: string; path: string } {
  const dir = tempDir()
  dirs.push(dir)
  return { dir, path: join(dir, 'logbook.sqlite') }
}

async function backendOn(path: string, options = {}): Promise<SqliteBackend> {
  const backend = await startBackend(path, options)
  backends.push(backend)
  return backend
}

async function storeOneSession(backend: SqliteBackend, id = 's1'): Promise<void> {
  const token = await backend.lock(id, owner(), signal)
  await backend.materialize(token, header(id), records(turn(0)), signal)
  await backend.unlock(token, signal)
}

describe('pragmas and identity', () => {
  it('P-101 pragmas read back as configured; application_id 0x4C4F4742, user_version 3; no file before the first write', async () => {
    const { path } = newPath()
    const backend = await backendOn(path, { busyTimeoutMs: 1234 })
    await backend.list({ limit: 50 }, signal)
    expect(await backend.scan('s1', {}, signal)).toBeUndefined()
    expect(await backend.exists('s1', signal)).toBe(false)
    expect(existsSync(path)).toBe(false)
    await storeOneSession(backend)
    expect(existsSync(path)).toBe(true)
    expect(backend.pragmas()).toMatchObject({
      journal_mode: 'wal', synchronous: 2, foreign_keys: 1, trusted_schema: 0, cache_size: -2048, mmap_size: 0, busy_timeout: 1234,
      application_id: LOGBOOK_APPLICATION_ID, user_version: 3,
    })
    withDatabase(path, db => {
      expect(db.pragma('application_id', { simple: true })).toBe(0x4c4f4742)
      expect(db.pragma('user_version', { simple: true })).toBe(3)
    })
    const other = newPath()
    const normal = await backendOn(other.path, { synchronous: 'normal', journalMode: 'delete', busyTimeoutMs: 0 })
    await storeOneSession(normal)
    expect(normal.pragmas()).toMatchObject({ journal_mode: 'delete', synchronous: 1, busy_timeout: 0 })
  })

  it('P-101 a pragma that does not read back as set is STORE_UNSAFE', () => {
    const fake = { pragma: (source: string) => (source === 'synchronous' ? 1 : source.includes('=') ? [] : source === 'journal_mode' ? 'wal' : source === 'busy_timeout' ? 5 : 0) }
    const error = thrown(() => applyPragmas(fake as never, '/x/db.sqlite', { journalMode: 'wal', synchronous: 'full', busyTimeoutMs: 5 }))
    expect(error.code).toBe('STORE_UNSAFE')
    expect(error.message).toContain('synchronous')
  })

  it('P-102 a foreign table with application_id 0 is STORE_FOREIGN naming the file', async () => {
    const { path } = newPath()
    const db = new Database(path)
    db.exec('CREATE TABLE notes (body TEXT)')
    db.close()
    chmodSync(path, 0o600)
    const error = await rejection(startBackend(path))
    expect(error.code).toBe('STORE_FOREIGN')
    expect(error.message).toContain(path)
  })

  it('P-102 application_id 12345 is STORE_FOREIGN; user_version 4 is STORE_INCOMPATIBLE newer', async () => {
    const { path } = newPath()
    const db = new Database(path)
    db.pragma('application_id = 12345')
    db.close()
    chmodSync(path, 0o600)
    expect((await rejection(startBackend(path))).code).toBe('STORE_FOREIGN')

    const other = newPath()
    await storeOneSession(await backendOn(other.path))
    withDatabase(other.path, raw => raw.pragma('user_version = 4'))
    const error = await rejection(startBackend(other.path))
    expect(error.code).toBe('STORE_INCOMPATIBLE')
    expect(error.details).toMatchObject({ direction: 'newer' })
    expect(error.message).toMatch(/newer Logbook \(schema version 4, this build reads 3\): upgrade Logbook/)
    expect(error.message).toContain(other.path)
  })

  it('P-102 an extra column, an extra index or a non-STRICT table is STORE_INCOMPATIBLE', async () => {
    const damages = [
      'ALTER TABLE logbook_leases ADD COLUMN note TEXT',
      'CREATE INDEX extra_index ON logbook_leases (pid)',
      'DROP TABLE logbook_projection_checkpoints; CREATE TABLE logbook_projection_checkpoints (session_id TEXT PRIMARY KEY REFERENCES logbook_sessions (id) ON DELETE CASCADE, seq INTEGER NOT NULL, body TEXT NOT NULL)',
    ]
    for (const damage of damages) {
      const { path } = newPath()
      const backend = await backendOn(path)
      await storeOneSession(backend)
      await backend.close()
      withDatabase(path, db => db.exec(damage))
      expect((await rejection(startBackend(path))).code).toBe('STORE_INCOMPATIBLE')
    }
  })

  it('P-102 a schema altered after start refuses the next write and writes nothing', async () => {
    const { path } = newPath()
    const backend = await backendOn(path)
    await storeOneSession(backend)
    withDatabase(path, db => db.exec('CREATE TABLE intruder (x INTEGER)'))
    const error = await rejection(backend.lock('s2', owner(), signal))
    expect(error.code).toBe('STORE_INCOMPATIBLE')
    withDatabase(path, db => {
      expect(db.prepare('SELECT count(*) AS n FROM logbook_leases').get()).toEqual({ n: 0 })
    })
  })

  it('P-103 with busyTimeoutMs 0 an append under another BEGIN IMMEDIATE fails STORE_IO at once; the retry succeeds', async () => {
    const { path } = newPath()
    const backend = await backendOn(path, { busyTimeoutMs: 0 })
    const token = await backend.lock('s1', owner(), signal)
    const first = await backend.materialize(token, header('s1'), records(turn(0)), signal)
    expect(backend.pragmas()).toMatchObject({ busy_timeout: 0 })
    const blocker = new Database(path)
    blocker.prepare('BEGIN IMMEDIATE').run()
    const error = await rejection(backend.append(token, first, records(turn(6, 2)), signal))
    expect(error.code).toBe('STORE_IO')
    blocker.prepare('COMMIT').run()
    blocker.close()
    const second = await backend.append(token, first, records(turn(6, 2)), signal)
    expect(second.nextSeq).toBe(12)
  })
})

describe('file checks', () => {
  const setups: Record<string, (dir: string, path: string) => string> = {
    'file 0644': (_dir, path) => {
      createStoreFile(path, false)
      chmodSync(path, 0o644)
      return path
    },
    'parent 0770': (dir, path) => {
      chmodSync(dir, 0o770)
      return path
    },
    'symlinked file': (dir, path) => {
      createStoreFile(join(dir, 'real.sqlite'), false)
      symlinkSync(join(dir, 'real.sqlite'), path)
      return path
    },
    'symlinked parent': dir => {
      mkdirSync(join(dir, 'real'), { mode: 0o700 })
      symlinkSync(join(dir, 'real'), join(dir, 'link'))
      return join(dir, 'link', 'logbook.sqlite')
    },
  }

  for (const [name, setup] of Object.entries(setups)) {
    it(`P-105 ${name} → STORE_UNSAFE naming path and mode; accepted with checkPermissions: false`, async () => {
      const { dir, path } = newPath()
      const target = setup(dir, path)
      const error = await rejection(startBackend(target))
      expect(error.code).toBe('STORE_UNSAFE')
      expect(error.message).toMatch(/\/.*(mode|symlink)/)
      const relaxed = await backendOn(target, { checkPermissions: false })
      await storeOneSession(relaxed)
      expect(await relaxed.exists('s1', signal)).toBe(true)
    })
  }

  it('P-105 a directory as path → STORE_UNSAFE even with checkPermissions: false', async () => {
    const { path } = newPath()
    mkdirSync(path, { mode: 0o700 })
    expect((await rejection(startBackend(path))).code).toBe('STORE_UNSAFE')
    expect((await rejection(startBackend(path, { checkPermissions: false }))).code).toBe('STORE_UNSAFE')
  })

  it('P-105 the first write creates a missing parent 0700 and the file 0600', async () => {
    const { dir } = newPath()
    const path = join(dir, 'nested', 'store.sqlite')
    const backend = await backendOn(path)
    expect(existsSync(join(dir, 'nested'))).toBe(false)
    await storeOneSession(backend)
    const { statSync } = await import('node:fs')
    expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700)
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })
})
