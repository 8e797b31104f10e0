import type { Context, Fiber, Message } from '@deepseek-ai/cordis'
import type { SessionId } from '@logbook/session'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Coordinator } from '../src/coordinator.ts'
import { isSessionPersistenceError } from '../src/errors.ts'
import { FaultyBackend, header, makeApp, pluginFor, turn } from './helpers.ts'

let app: Context
let logs: Message[]
let backend: FaultyBackend
let fiber: Fiber

beforeEach(async () => {
  vi.useFakeTimers()
  ;({ app, logs } = await makeApp())
  backend = new FaultyBackend()
  fiber = await app.plugin(pluginFor(backend), {})
})

afterEach(async () => {
  backend.heal()
  await fiber.dispose()
  vi.useRealTimers()
})

describe('retiring writers (02 §2.5)', () => {
  it('P-053 open(write) on a retiring session of a failing store waits for an attempt, then SESSION_LOCKED retiring; after healing it succeeds', async () => {
    const session = app.sessions.prepare('r1' as SessionId)
    const detach = app.sessions.enter(session)
    app.sessions.announce(session)
    await vi.advanceTimersByTimeAsync(0)
    session.append('turn/start', { turn: 1 })
    backend.fail('materialize')
    detach() // session/disposed: the writer retires and its first attempt fails
    await vi.advanceTimersByTimeAsync(0)
    expect(backend.count('materialize')).toBe(1)

    const refused = await app.sessionPersistence.open('r1', 'write').catch((e: unknown) => e)
    expect(backend.count('materialize')).toBe(2) // open waited for one more attempt
    expect(isSessionPersistenceError(refused, 'SESSION_LOCKED')).toBe(true)
    expect(refused).toMatchObject({ details: { holder: { scope: 'in-process', kind: 'retiring' } } })
    expect((refused as Error).cause).toMatchObject({ code: 'STORE_IO' })

    backend.heal()
    const handle = await app.sessionPersistence.open('r1', 'write')
    expect(handle.nextSeq).toBe(1)
    expect((await handle.read(0)).map(e => e.type)).toEqual(['turn/start'])
    await handle.close()
  })

  it('a retiring session on a healthy store releases its claim and lock once drained', async () => {
    const session = app.sessions.prepare('r2' as SessionId)
    const detach = app.sessions.enter(session)
    app.sessions.announce(session)
    await vi.advanceTimersByTimeAsync(0)
    session.append('turn/start', { turn: 1 })
    detach()
    await vi.advanceTimersByTimeAsync(0)
    expect(backend.inner.store.locks.size).toBe(0)
    const inspection = await app.sessionPersistence.inspect('r2')
    expect(inspection.claim).toBe('none')
    expect(inspection.openTurn).toBe(1)
  })
})

describe('plugin teardown (02 §2.5)', () => {
  it('P-111 dispose on a failing store rejects AggregateError "<backend> dispose failed" and releases every lock anyway', async () => {
    const stored = await app.sessionPersistence.create(header('h2'))
    await stored.append(turn(0, 1))
    const session = app.sessions.create('w1' as SessionId)
    await vi.advanceTimersByTimeAsync(0)
    session.append('turn/start', { turn: 1 })
    backend.fail('materialize')
    expect(backend.inner.store.locks.size).toBe(2)
    const coordinator = (app.sessionPersistence as unknown as { coordinator: Coordinator }).coordinator

    await fiber.dispose()
    const outcome = await coordinator.disposal!.then(() => undefined, (e: unknown) => e)
    expect(outcome).toBeInstanceOf(AggregateError)
    expect((outcome as AggregateError).message).toBe('faulty dispose failed')
    expect((outcome as AggregateError).errors.map(e => (e as { code: string }).code)).toEqual(['STORE_IO'])
    expect(backend.inner.store.locks.size).toBe(0)
    expect(backend.count('close')).toBe(1)
    await expect(stored.read(0)).rejects.toMatchObject({ code: 'PERSISTENCE_DISPOSED' })
    expect(logs.some(m => m.type === 'error')).toBe(true)
  })

  it('dispose with pending events flushes them; a new instance on the same store adopts the live session', async () => {
    const session = app.sessions.create('w2' as SessionId)
    await vi.advanceTimersByTimeAsync(0)
    session.append('turn/start', { turn: 1 })
    await fiber.dispose()
    expect(backend.inner.store.sessions.get('w2')?.nextSeq).toBe(1)
    expect(backend.inner.store.locks.size).toBe(0)
    fiber = await app.plugin(pluginFor(backend), {})
    await vi.advanceTimersByTimeAsync(0)
    session.append('step/start', { turn: 1, step: 1 })
    await app.sessions.flush(session)
    expect(backend.inner.store.sessions.get('w2')?.nextSeq).toBe(2)
  })
})
