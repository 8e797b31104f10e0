/**
 * F-032, F-033 [ft]: the follower's timing (spec 04 §3.1) under fake timers — commits are indexed in one batch
 * `indexDelayMs` after the first of them, and a failed session is reindexed `retryDelayMs` later.
 */
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { type Session, SessionId } from '@logbook/session'
import MemorySessionPersistence from '@logbook/session-persistence'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import SessionSearch, { type SearchIndexedEvent } from '../src/index.ts'
import { tempDir, turn } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
})

async function app(config: Record<string, unknown>): Promise<{ app: Context; session: Session; steps: SearchIndexedEvent[]; failures: number[] }> {
  const app = new Context()
  app.logger.exporter({ levels: { default: 0 }, export: () => {} })
  await app.plugin(SessionStore)
  await app.plugin(MemorySessionPersistence, { storeName: `timers-${Math.random()}` } as never)
  await app.plugin(SessionSearch, config as never)
  const steps: SearchIndexedEvent[] = []
  const failures: number[] = []
  app.on('search/indexed', event => {
    steps.push(event)
  })
  app.on('search/index-failed', () => {
    failures.push(Date.now())
  })
  return { app, session: app.sessions.create(SessionId('t')), steps, failures }
}

describe('follower timing [ft]', () => {
  it('F-032 commits at 0 and 100 ms are indexed in one step at 200 ms, none before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const { app: ctx, session, steps } = await app({ indexDelayMs: 200 })
    turn(session, 1, { prompt: 'one', reply: 'ok' })
    await ctx.sessions.flush(session)
    await vi.advanceTimersByTimeAsync(100)
    turn(session, 2, { prompt: 'two', reply: 'ok' })
    await ctx.sessions.flush(session)
    await vi.advanceTimersByTimeAsync(99)
    expect(steps).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(steps).toEqual([{ sessionId: 't', source: 'live', reset: false, fromSeq: 0, toSeq: session.seq, rows: 4 }])
    await vi.advanceTimersByTimeAsync(10_000)
    expect(steps).toHaveLength(1)
  })

  it('F-033 a session whose indexing failed is reindexed from seq 0 retryDelayMs after the failure', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const path = join(tempDir(), 'index.sqlite')
    const { app: ctx, session, steps, failures } = await app({ path, indexDelayMs: 200, retryDelayMs: 5000, busyTimeoutMs: 0 })
    turn(session, 1, { prompt: 'one', reply: 'ok' })
    await ctx.sessions.flush(session)
    await vi.advanceTimersByTimeAsync(200)
    expect(steps).toHaveLength(1)
    const other = new Database(path)
    other.exec('BEGIN IMMEDIATE')
    turn(session, 2, { prompt: 'two', reply: 'ok' })
    await ctx.sessions.flush(session)
    const failedAt = Date.now() + 200
    await vi.advanceTimersByTimeAsync(200)
    expect(failures).toEqual([failedAt])
    other.exec('ROLLBACK')
    other.close()
    await vi.advanceTimersByTimeAsync(4999)
    expect(steps).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(steps.slice(1)).toEqual([{ sessionId: 't', source: 'live', reset: true, fromSeq: 0, toSeq: session.seq, rows: 4 }])
    expect(failures).toHaveLength(1)
  })
})
