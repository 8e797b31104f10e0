/**
 * Group commit (02 §6 "Group commit"): batches of several sessions queued together share one write transaction,
 * each settles with its own result, and one batch's failure rejects only that batch.
 */

import { rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { type Session, type SessionId } from '@logbook/session'
import type { CommitResult, LockToken } from '@logbook/session-persistence'
import type { SqliteBackend } from '../src/backend.ts'
import SqliteSessionPersistence from '../src/index.ts'
import { tempDir, withDatabase } from './fixture.ts'
import { header, owner, records, rejection, signal, startBackend, turn } from './helpers.ts'

let dir: string
let path: string
let backend: SqliteBackend

beforeEach(async () => {
  dir = tempDir()
  path = join(dir, 'logbook.sqlite')
  backend = await startBackend(path)
})
afterEach(async () => {
  vi.useRealTimers()
  await backend.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Lock and materialise `id` with one turn (its own transaction), returning the token and commit. */
async function stored(id: string): Promise<{ token: LockToken; commit: CommitResult }> {
  const token = await backend.lock(id, owner(), signal)
  return { token, commit: await backend.materialize(token, header(id), records(turn(0)), signal) }
}

/** The stored rows of `id` as (seq, body) pairs, read through a connection of the test's own. */
const rowsOf = (id: string): { seq: number; body: string }[] =>
  withDatabase(path, db => db.prepare('SELECT seq, body FROM logbook_events WHERE session_id = ? ORDER BY seq').all(id) as { seq: number; body: string }[])

const nextSeqOf = (id: string, file = path): number | undefined =>
  withDatabase(file, db => (db.prepare('SELECT next_seq FROM logbook_sessions WHERE id = ?').get(id) as { next_seq: number } | undefined)?.next_seq)

describe('one transaction per group', () => {
  it('P-154 appends and materialisations of several sessions queued together commit once; each resolves with its own cursor and revision', async () => {
    const a = await stored('a')
    const b = await stored('b')
    const c = { token: await backend.lock('c', owner(), signal) }
    const before = backend.commits
    const [ra, rb, rc] = await Promise.all([
      backend.append(a.token, a.commit, records(turn(6, 2)), signal),
      backend.append(b.token, b.commit, records(turn(6, 2)), signal),
      backend.materialize(c.token, header('c'), records(turn(0)), signal),
    ])
    expect(backend.commits - before).toBe(1)
    expect(ra).toMatchObject({ nextSeq: 12, physicalLength: 8 })
    expect(rb).toMatchObject({ nextSeq: 12, physicalLength: 8 })
    expect(rc).toMatchObject({ nextSeq: 6, physicalLength: 4 })
    expect(ra.revision).not.toBe(rb.revision)
    expect(ra.revision.endsWith(':2') && rb.revision.endsWith(':2') && rc.revision.endsWith(':1')).toBe(true)
    expect(rowsOf('a').map(r => r.seq)).toEqual([0, 1, 2, 5, 6, 7, 8, 11])
    expect(nextSeqOf('c')).toBe(6)
    // The cached row counts follow the committed revisions: the next append reports the right length.
    expect(await backend.append(a.token, ra, records(turn(12, 3)), signal)).toMatchObject({ nextSeq: 18, physicalLength: 12 })
  })

  it('P-154 live sessions flushing together: one commit per round, each flush resolves once its own events are stored', async () => {
    const app = new Context()
    await app.plugin(SessionStore)
    const fiber = app.plugin(SqliteSessionPersistence, { path: join(dir, 'live.sqlite'), writeBatchMaxDelayMs: 60_000 })
    await fiber
    try {
      const sessions = app.get('sessions') as SessionStore
      const persistence = app.get('sessionPersistence') as SqliteSessionPersistence
      const live: Session[] = []
      for (let i = 0; i < 8; i++) live.push(sessions.create(`live-${i}` as SessionId, { meta: { cwd: '/home/user/app' } }))
      await Promise.all(live.map(s => sessions.flush(s))) // binding: each takes its lease (own transactions)
      for (let round = 1; round <= 2; round++) {
        live.forEach((s, i) => {
          s.append('turn/start', { turn: round })
          for (let k = 0; k <= i; k++) s.append('todo/write', { todos: [] })
          s.append('turn/end', { turn: round, reason: { kind: 'completed' } })
        })
        const before = persistence.commits
        await Promise.all(live.map(s => sessions.flush(s)))
        expect(persistence.commits - before, `round ${round}`).toBe(1)
        for (const [i, s] of live.entries()) expect(nextSeqOf(s.id, join(dir, 'live.sqlite')), `live-${i}`).toBe(s.seq)
      }
    } finally {
      await fiber.dispose()
    }
  })

  it('P-157 a lone append commits at once without any timer (fake timers never advanced); close writes queued batches first', async () => {
    const a = await stored('a')
    vi.useFakeTimers()
    const before = backend.commits
    const first = await backend.append(a.token, a.commit, records(turn(6, 2)), signal)
    expect(backend.commits - before).toBe(1)
    const second = await backend.append(a.token, first, records(turn(12, 3)), signal)
    expect(backend.commits - before).toBe(2)
    vi.useRealTimers()
    const queued = backend.append(a.token, second, records(turn(18, 4)), signal)
    await backend.close()
    expect(await queued).toMatchObject({ nextSeq: 24 })
    expect(nextSeqOf('a')).toBe(24)
    backend = await startBackend(path)
  })
})

describe('failures inside a group', () => {
  it('P-155 a bad expectation, a lost lease and a row conflict halfway through a batch reject only their own batches; the others commit', async () => {
    const ok1 = await stored('ok1')
    const stale = await stored('stale')
    const lost = await stored('lost')
    const clash = await stored('clash')
    const ok2 = await stored('ok2')
    await backend.breakLock('lost', lost.token.owner.ownerId, signal)
    const rowsBefore = { stale: rowsOf('stale'), lost: rowsOf('lost'), clash: rowsOf('clash') }
    const [seq6] = records(turn(6, 2))
    const before = backend.commits
    const outcomes = await Promise.allSettled([
      backend.append(ok1.token, ok1.commit, records(turn(6, 2)), signal),
      backend.append(stale.token, { ...stale.commit, nextSeq: 3 }, records(turn(3, 2)), signal),
      backend.append(lost.token, lost.commit, records(turn(6, 2)), signal),
      // Its first row is written inside the group before the second collides with it: the savepoint must undo it.
      backend.append(clash.token, clash.commit, [seq6!, seq6!], signal),
      backend.append(ok2.token, ok2.commit, records(turn(6, 2)), signal),
    ])
    expect(backend.commits - before).toBe(1)
    expect(outcomes.map(o => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'fulfilled'])
    const reason = (i: number) => (outcomes[i] as PromiseRejectedResult).reason as Error & { code?: string; details?: unknown }
    expect([reason(1).code, reason(1).message]).toEqual(['SESSION_CONFLICT', 'session "stale": stored next seq is 6'])
    expect(reason(2).code).toBe('SESSION_LOCKED')
    expect(reason(2).details).toMatchObject({ lost: true })
    expect([reason(3).code, reason(3).message]).toEqual(['SESSION_CONFLICT', 'session "clash": a row is already stored at seq 6'])
    expect({ stale: rowsOf('stale'), lost: rowsOf('lost'), clash: rowsOf('clash') }).toEqual(rowsBefore)
    expect([nextSeqOf('stale'), nextSeqOf('lost'), nextSeqOf('clash')]).toEqual([6, 6, 6])
    expect([nextSeqOf('ok1'), nextSeqOf('ok2')]).toEqual([12, 12])
    expect((await backend.scan('clash', {}, signal))?.revision).toBe(clash.commit.revision)
  })

  it('P-156 every batch failing commits nothing (a lone one too, its first row gone); a busy store rejects every batch of the group with STORE_IO and stores none', async () => {
    const a = await stored('a')
    const b = await stored('b')
    let before = backend.commits
    const failing = await Promise.allSettled([
      backend.append(a.token, { ...a.commit, nextSeq: 1 }, records(turn(1, 2)), signal),
      backend.append(b.token, { ...b.commit, revision: 'sqlite:x:y:0' }, records(turn(6, 2)), signal),
    ])
    expect(failing.map(o => o.status === 'rejected' && (o.reason as { code?: string }).code)).toEqual(['SESSION_CONFLICT', 'SESSION_CONFLICT'])
    expect(backend.commits).toBe(before)
    // A lone batch runs without a savepoint: its first row must still vanish with the transaction.
    const [seq6] = records(turn(6, 2))
    const lone = await rejection(backend.append(a.token, a.commit, [seq6!, seq6!], signal))
    expect([lone.code, lone.message]).toEqual(['SESSION_CONFLICT', 'session "a": a row is already stored at seq 6'])
    expect(rowsOf('a').map(r => r.seq)).toEqual([0, 1, 2, 5])
    expect(backend.commits).toBe(before)

    await backend.close()
    backend = await startBackend(path, { busyTimeoutMs: 0 })
    const holder = new Database(path)
    holder.prepare('BEGIN IMMEDIATE').run()
    before = backend.commits
    const busy = await Promise.allSettled([
      backend.append(a.token, a.commit, records(turn(6, 2)), signal),
      backend.append(b.token, b.commit, records(turn(6, 2)), signal),
    ])
    holder.prepare('ROLLBACK').run()
    holder.close()
    for (const outcome of busy) {
      expect(outcome.status).toBe('rejected')
      const error = (outcome as PromiseRejectedResult).reason as Error & { code?: string }
      expect([error.code, error.message]).toEqual(['STORE_IO', `store ${path}: database is busy (SQLITE_BUSY)`])
    }
    expect(backend.commits).toBe(before)
    expect([nextSeqOf('a'), nextSeqOf('b')]).toEqual([6, 6])
    const retried = await Promise.all([
      backend.append(a.token, a.commit, records(turn(6, 2)), signal),
      backend.append(b.token, b.commit, records(turn(6, 2)), signal),
    ])
    expect(retried.map(r => r.nextSeq)).toEqual([12, 12])
    expect(backend.commits - before).toBe(1)
    expect(await rejection(backend.append(a.token, a.commit, records(turn(6, 2)), signal))).toMatchObject({ code: 'SESSION_CONFLICT' })
  })
})
