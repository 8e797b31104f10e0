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

describe('teardown order and retries (02 §2.5)', () => {
  it('P-111 teardown writes each live session once: a failed teardown write is not retried while teardown waits', async () => {
    const stored = await app.sessionPersistence.create(header('h3'))
    await stored.append(turn(0, 1))
    const release = backend.block('append')
    const pendingAppend = stored.append(turn(4, 2)) // in flight: teardown step 3 waits for it
    const session = app.sessions.create('w3' as SessionId)
    await vi.advanceTimersByTimeAsync(0)
    session.append('turn/start', { turn: 1 })
    backend.fail('materialize')
    const before = backend.count('materialize')
    const coordinator = (app.sessionPersistence as unknown as { coordinator: Coordinator }).coordinator
    const disposing = fiber.dispose()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(backend.count('materialize')).toBe(before + 1)
    expect(backend.count('close')).toBe(0)
    release()
    await pendingAppend
    await disposing
    const outcome = await coordinator.disposal!.then(() => undefined, (e: unknown) => e)
    expect((outcome as AggregateError).errors.map(e => (e as { code: string }).code)).toEqual(['STORE_IO'])
    const order = backend.calls.map(c => c.hook).filter(h => h === 'unlock' || h === 'close')
    expect(order).toEqual(['unlock', 'unlock', 'close'])
    expect(backend.inner.store.locks.size).toBe(0)
  })
})

describe('claims (02 §3.1)', () => {
  const owners = () => (globalThis as Record<symbol, Set<string> | undefined>)[Symbol.for('logbook.persistence.owners')]!

  it('every claim mints an owner id registered in the process-global set until release; events name its kind', async () => {
    const claimed: { sessionId: string; ownerId: string; kind: string }[] = []
    const released: { sessionId: string; ownerId: string; kind: string }[] = []
    app.on('persistence/claimed', event => void claimed.push(event))
    app.on('persistence/released', event => void released.push(event))
    const handle = await app.sessionPersistence.create(header('c1'))
    expect(claimed).toEqual([{ sessionId: 'c1', ownerId: expect.stringMatching(/^[0-9a-f-]{36}$/), kind: 'handle' }])
    const ownerId = claimed[0]!.ownerId
    expect(owners().has(ownerId)).toBe(true)
    await handle.close()
    expect(owners().has(ownerId)).toBe(false)
    expect(released).toEqual([{ sessionId: 'c1', ownerId, kind: 'handle' }])
  })

  it('P-047 two open(write) in one tick: the loser fails before any I/O; one lock, one scan', async () => {
    const h = await app.sessionPersistence.create(header('c2'))
    await h.append(turn(0, 1))
    await h.close()
    const locks = backend.count('lock')
    const scans = backend.count('scan')
    const first = app.sessionPersistence.open('c2', 'write')
    const second = app.sessionPersistence.open('c2', 'write')
    const [won, lost] = await Promise.allSettled([first, second])
    expect(won.status).toBe('fulfilled')
    expect(lost).toMatchObject({ status: 'rejected', reason: { code: 'SESSION_LOCKED', details: { holder: { scope: 'in-process', kind: 'handle' } } } })
    expect(backend.count('lock') - locks).toBe(1)
    expect(backend.count('scan') - scans).toBe(1)
    await (won as PromiseFulfilledResult<Awaited<typeof first>>).value.close()
  })

  it('P-185 a read handle scans once for open and its first read while the store is unchanged, and again once it changed', async () => {
    const h = await app.sessionPersistence.create(header('c3'))
    await h.append(turn(0, 1))
    await h.close()
    let scans = backend.count('scan')
    const reader = await app.sessionPersistence.open('c3', 'read')
    expect(await reader.read(0)).toEqual(turn(0, 1))
    expect(backend.count('scan') - scans).toBe(1)
    expect(await reader.read(0)).toEqual(turn(0, 1)) // a later read reads the store
    expect(backend.count('scan') - scans).toBe(2)
    await reader.close()

    scans = backend.count('scan')
    const late = await app.sessionPersistence.open('c3', 'read')
    const writer = await app.sessionPersistence.open('c3', 'write')
    const { revision } = await writer.append(turn(4, 2))
    await writer.close()
    expect(await late.read(3)).toEqual([...turn(0, 1), ...turn(4, 2)].slice(3))
    expect(late.revision).toBe(revision)
    expect(late.nextSeq).toBe(8)
    expect(backend.count('scan') - scans).toBe(3) // the reader's open and read, the writer's open
    await late.close()
  })

  it('P-053 a claimant that waited for a retiring session claims with its own kind', async () => {
    const claimed: { kind: string }[] = []
    app.on('persistence/claimed', event => void claimed.push(event))
    const session = app.sessions.prepare('c3' as SessionId)
    const detach = app.sessions.enter(session)
    app.sessions.announce(session)
    await vi.advanceTimersByTimeAsync(0)
    session.append('turn/start', { turn: 1 })
    backend.fail('materialize', undefined, 1)
    detach()
    await vi.advanceTimersByTimeAsync(0)
    const handle = await app.sessionPersistence.open('c3', 'write') // waits for one more (successful) attempt
    expect(claimed.map(c => c.kind)).toEqual(['live-session', 'handle'])
    await handle.close()
  })
})

describe('signals and check order (02 §1.1)', () => {
  it('open(write) aborted mid-way rejects with the reason after releasing lock and claim', async () => {
    const h = await app.sessionPersistence.create(header('a1'))
    await h.append(turn(0, 1))
    await h.close()
    const controller = new AbortController()
    const release = backend.block('scan')
    const opening = app.sessionPersistence.open('a1', 'write', { signal: controller.signal })
    await vi.advanceTimersByTimeAsync(0)
    expect(backend.inner.store.locks.size).toBe(1)
    const reason = new Error('stop')
    controller.abort(reason)
    release()
    expect(await opening.then(() => undefined, (e: unknown) => e)).toBe(reason)
    expect(backend.inner.store.locks.size).toBe(0)
    expect((await app.sessionPersistence.inspect('a1')).claim).toBe('none')
  })

  it('open(write) aborted during the repair cut rejects with the reason; the committed cut stays', async () => {
    const { memoryDamage } = await import('./memory-damage.ts')
    const name = `abort-cut-${Math.random()}`
    const shared = new FaultyBackend(name)
    const { app: other } = await makeApp()
    const otherFiber = await other.plugin(pluginFor(shared), {})
    const h = await other.sessionPersistence.create(header('a2'))
    await h.append(turn(0, 1))
    await h.close()
    memoryDamage(name).tearLastRecord('a2', 3)
    const repairs: unknown[] = []
    other.on('persistence/committed', event => void repairs.push(event.source))
    const controller = new AbortController()
    const release = shared.block('cut')
    const opening = other.sessionPersistence.open('a2', 'write', { signal: controller.signal })
    await vi.advanceTimersByTimeAsync(0)
    const reason = new Error('stop')
    controller.abort(reason)
    release()
    expect(await opening.then(() => undefined, (e: unknown) => e)).toBe(reason)
    expect(repairs).toEqual(['repair'])
    const inspection = await other.sessionPersistence.inspect('a2')
    expect([inspection.tornTail, inspection.events.length, inspection.claim]).toEqual([null, 3, 'none'])
    await otherFiber.dispose()
  })

  it('create checks the stored log before the lock, and again under it', async () => {
    const h = await app.sessionPersistence.create(header('a3'))
    await h.append(turn(0, 1))
    await h.close()
    const locks = backend.count('lock')
    expect(await app.sessionPersistence.create(header('a3')).catch((e: unknown) => e)).toMatchObject({ code: 'SESSION_ALREADY_EXISTS' })
    expect(backend.count('lock')).toBe(locks)
    expect(backend.count('exists')).toBe(3) // a3 created (2 checks), then refused at the first check
  })
})
