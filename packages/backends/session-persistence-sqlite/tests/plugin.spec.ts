/**
 * `SqliteSessionPersistence` as a Cordis plugin: config validation and path resolution, refusal of foreign and
 * incompatible stores at start, P-106 (header and row agreement), the format refusals naming the database, write-behind
 * of a live session, and the SQLite invariant companion (02 §8).
 */

import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { Context, type Message } from '@deepseek-ai/cordis'
import SessionStore, { type SessionEvent, type SessionId } from '@logbook/session'
import { recordChecksum, type SessionPersistence } from '@logbook/session-persistence'
import { testApp } from '@logbook/test-kit'
import type { SqliteBackend } from '../src/backend.ts'
import { resolveStorePath } from '../src/config.ts'
import SqliteSessionPersistence from '../src/index.ts'
import * as invariant from '../src/invariant.ts'
import { commitViolations } from '../src/invariant.ts'
import { sqliteDamage, tempDir, withDatabase } from './fixture.ts'
import { header, rejection, scalars, turn } from './helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface App { app: Context; persistence: SessionPersistence; sessions: SessionStore; logs: Message[]; path: string }

async function mount(path: string, config: Record<string, unknown> = {}, withInvariant = false): Promise<App> {
  const { app, records: logs } = testApp()
  const store = app.plugin(SessionStore)
  await store
  const fiber = app.plugin(SqliteSessionPersistence, { path, writeBatchMaxDelayMs: 5, ...config })
  await fiber
  if (withInvariant) await app.plugin(invariant)
  cleanups.push(async () => {
    await fiber.dispose()
    await store.dispose()
  })
  return { app, persistence: app.get('sessionPersistence') as SessionPersistence, sessions: app.get('sessions') as SessionStore, logs, path }
}

function freshPath(): string {
  const dir = tempDir()
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return join(dir, 'logbook.sqlite')
}

async function storeTurns(app: App, id: string, events: readonly SessionEvent[]): Promise<string> {
  const handle = await app.persistence.create(header(id))
  await handle.append(events)
  const revision = handle.revision!
  await handle.close()
  return revision
}

/** Load the plugin and return the error its start failed with. */
async function startFailure(path: string, config: Record<string, unknown> = {}): Promise<Error & { code?: string }> {
  const app = new Context()
  await app.plugin(SessionStore)
  const fiber = app.plugin(SqliteSessionPersistence, { path, ...config })
  cleanups.push(async () => {
    await fiber.dispose()
  })
  const error = await rejection(Promise.resolve(fiber).then(() => {
    if (app.get('sessionPersistence') === undefined) throw (fiber as unknown as { _error?: Error })._error ?? new Error('not started')
  }))
  return error
}

describe('config', () => {
  it('resolves a relative path against the config folder (ctx.baseUrl) or the cwd; keeps :memory:', () => {
    expect(resolveStorePath('db/x.sqlite', pathToFileURL('/srv/app/').href)).toBe('/srv/app/db/x.sqlite')
    expect(resolveStorePath('db/x.sqlite', '/srv/app')).toBe('/srv/app/db/x.sqlite')
    expect(resolveStorePath('/abs/x.sqlite', 'file:///srv/app/')).toBe('/abs/x.sqlite')
    expect(resolveStorePath(':memory:', undefined)).toBe(':memory:')
    expect(resolveStorePath('.logbook/logbook.sqlite', undefined)).toBe(join(process.cwd(), '.logbook/logbook.sqlite'))
  })

  it('invalid config fails the plugin with a ValidationError', async () => {
    for (const bad of [{ synchronous: 'off' }, { journalMode: 'memory' }, { busyTimeoutMs: -1 }, { busyTimeoutMs: 60_001 }]) {
      const error = await startFailure(freshPath(), bad)
      expect(error.name).toBe('ValidationError')
    }
  })

  it('a :memory: store works and is neither durable nor locatable', async () => {
    const app = await mount(':memory:')
    expect(app.persistence.capabilities).toEqual({ crossProcess: false, durable: false, locate: false })
    await storeTurns(app, 's1', turn(0))
    expect((await app.persistence.readFrom('s1', 0)).length).toBe(6)
    expect(await app.persistence.locate('s1')).toBeUndefined()
  })
})

describe('foreign and incompatible stores at start', () => {
  it('an unrelated SQLite database fails the plugin with STORE_FOREIGN naming the file', async () => {
    const path = freshPath()
    const db = new Database(path)
    db.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY)')
    db.close()
    const error = await startFailure(path, { checkPermissions: false })
    expect(error.code).toBe('STORE_FOREIGN')
    expect(error.message).toContain(path)
  })

  it('a file that is not a database at all is STORE_FOREIGN', async () => {
    const path = freshPath()
    writeFileSync(path, 'this is a text file, long enough to look like something other than SQLite'.repeat(20), { mode: 0o600 })
    expect((await startFailure(path)).code).toBe('STORE_FOREIGN')
  })
})

describe('stored sessions', () => {
  it('P-106 a header column that differs from the header JSON → SESSION_CORRUPT; unchanged', async () => {
    const app = await mount(freshPath())
    const revision = await storeTurns(app, 's1', turn(0))
    withDatabase(app.path, db => db.prepare("UPDATE logbook_sessions SET parent_session = 'other' WHERE id = 's1'").run())
    for (const attempt of [() => app.persistence.open('s1', 'write'), () => app.persistence.inspect('s1'), () => app.persistence.open('s1', 'read')]) {
      const error = await rejection(attempt())
      expect(error.code).toBe('SESSION_CORRUPT')
    }
    withDatabase(app.path, db => {
      expect(db.prepare("SELECT revision FROM logbook_sessions WHERE id = 's1'").get()).toEqual({ revision: Number(revision.split(':').at(-1)) })
      expect(db.prepare('SELECT count(*) AS n FROM logbook_leases').get()).toEqual({ n: 0 })
    })
  })

  it('P-106 a row body that differs from its columns before a turn/end → SESSION_CORRUPT naming its seq; nothing cut', async () => {
    const app = await mount(freshPath())
    await storeTurns(app, 's1', [...turn(0), ...turn(6, 2)])
    withDatabase(app.path, db => db.prepare("UPDATE logbook_events SET time = time + 1 WHERE session_id = 's1' AND seq = 1").run())
    const error = await rejection(app.persistence.open('s1', 'write'))
    expect(error.code).toBe('SESSION_CORRUPT')
    expect((error as { seq?: number }).seq).toBe(1)
    withDatabase(app.path, db => expect(db.prepare('SELECT count(*) AS n FROM logbook_events').get()).toEqual({ n: 8 }))
  })

  it('P-180 a row whose body is JSON null (its checksum matching) → SESSION_CORRUPT naming its seq, not a TypeError; unchanged', async () => {
    const app = await mount(freshPath())
    await storeTurns(app, 's1', [...turn(0), ...turn(6, 2)])
    withDatabase(app.path, db => {
      const crc = recordChecksum('null')
      db.prepare("UPDATE logbook_events SET body = 'null', crc = ? WHERE session_id = 's1' AND seq = 1").run(crc)
    })
    const before = withDatabase(app.path, db => db.prepare('SELECT seq, body, crc FROM logbook_events ORDER BY seq').all())
    const error = await rejection(app.persistence.open('s1', 'write'))
    expect(error.code).toBe('SESSION_CORRUPT')
    expect((error as { seq?: number }).seq).toBe(1)
    expect(error.message).toContain('row at seq 1: body seq undefined differs from seq column')
    withDatabase(app.path, db => expect(db.prepare('SELECT seq, body, crc FROM logbook_events ORDER BY seq').all()).toEqual(before))
  })

  it('a newer format version and an unknown non-ignorable type are refused naming the direction and the database', async () => {
    const app = await mount(freshPath())
    await storeTurns(app, 'newer', turn(0))
    sqliteDamage(app.path).setHeaderField('newer', 'version', 3)
    const newer = await rejection(app.persistence.open('newer', 'write'))
    expect(newer).toMatchObject({ code: 'SESSION_FORMAT_UNSUPPORTED', direction: 'newer' })
    expect(newer.message).toMatch(/newer.*upgrade.*\(raw log: .*logbook\.sqlite\)$/)

    await storeTurns(app, 'future', turn(0))
    sqliteDamage(app.path).appendRawRecord('future', JSON.stringify({ type: 'future/event', seq: 6, time: 1, data: {} }))
    const unknown = await rejection(app.persistence.open('future', 'read'))
    expect(unknown).toMatchObject({ code: 'SESSION_FORMAT_UNSUPPORTED', direction: 'newer' })
    expect(unknown.message).toContain('contains event type future/event unknown to this build')
    expect(unknown.message).toContain(`(raw log: ${app.path})`)
  })

  it('a live session is written behind as packed rows; a second instance reads it back', async () => {
    const path = freshPath()
    const first = await mount(path, {}, true)
    const session = first.sessions.create('live' as SessionId, { meta: { cwd: '/home/user/app' } })
    session.append('turn/start', { turn: 1 })
    session.append('step/start', { turn: 1, step: 1 })
    for (const text of ['a', 'b', 'c', 'd']) session.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text } })
    session.append('step/end', { turn: 1, step: 1 })
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await first.sessions.flush(session)
    withDatabase(path, db => {
      const rows = db.prepare("SELECT seq, last_seq, kind FROM logbook_events WHERE session_id = 'live' ORDER BY seq").all()
      expect(rows).toEqual([
        { seq: 0, last_seq: 0, kind: 'event' }, { seq: 1, last_seq: 1, kind: 'event' },
        { seq: 2, last_seq: 5, kind: 'text-chunks' }, { seq: 6, last_seq: 6, kind: 'event' }, { seq: 7, last_seq: 7, kind: 'event' },
      ])
    })
    expect(first.logs.filter(m => m.type === 'error')).toEqual([])
    const second = await mount(path)
    expect((await second.persistence.readFrom('live', 0)).map(e => e.type)).toEqual(session.events.map(e => e.type))
  })
})

describe('seek reads', () => {
  it('P-089 readFrom(nextSeq − 10) on 250k events returns the last 10 from at most 1,033 rows read, never a full scan', async () => {
    const app = await mount(freshPath())
    const handle = await app.persistence.create(header('big'))
    const batch = 10_000
    for (let seq = 0; seq < 250_000; seq += batch) await handle.append(scalars(seq, batch))
    await handle.close()
    const backend = (app.persistence as unknown as { sqliteBackend: SqliteBackend }).sqliteBackend
    backend.rowsRead = 0
    const events = await app.persistence.readFrom('big', 249_990)
    expect(events.map(e => e.seq)).toEqual([...Array(10).keys()].map(i => 249_990 + i))
    expect(backend.rowsRead).toBeGreaterThan(0)
    expect(backend.rowsRead).toBeLessThanOrEqual(1033)
  })
})

describe('invariant companion', () => {
  it('P-113 logs a violation when next_seq, the revision step or the lease owner disagree with a commit', async () => {
    const base = { sessionId: 's', source: 'handle' as const, fromSeq: 0, events: [], physicalLength: 1, ownerId: 'o1' }
    expect(commitViolations({ ...base, toSeq: 6, revision: 'sqlite:x:i:2' }, { nextSeq: 6, revision: 2, ownerId: 'o1' }, 1)).toEqual([])
    const problems = commitViolations({ ...base, toSeq: 6, revision: 'sqlite:x:i:3' }, { nextSeq: 5, revision: 3, ownerId: 'o2' }, 1)
    expect(problems.join('\n')).toMatch(/next_seq 5 ≠ committed toSeq 6[\s\S]*went from 1 to 3[\s\S]*lease names owner o2/)

    const app = await mount(freshPath(), {}, true)
    await storeTurns(app, 's1', turn(0))
    expect(app.logs.filter(m => m.type === 'error')).toEqual([])
    app.app.emit('persistence/committed', { ...base, sessionId: 's1', toSeq: 99, revision: 'sqlite:x:i:1' })
    expect(app.logs.filter(m => m.type === 'error').map(m => m.args.join(' ')).join('\n'))
      .toMatch(/session-persistence-sqlite-invariant: session "s1": stored next_seq 6 ≠ committed toSeq 99/)
  })
})
