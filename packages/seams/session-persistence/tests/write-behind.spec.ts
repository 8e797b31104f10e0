import type { Context, Fiber, Message } from '@deepseek-ai/cordis'
import type { Session, SessionId } from '@logbook/session'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { EncodedRecord } from '../src/backend.ts'
import { SessionPersistenceError } from '../src/errors.ts'
import type { PersistenceCommittedEvent, PersistenceWriteFailedEvent } from '../src/types.ts'
import { FaultyBackend, logsOf, makeApp, pluginFor, storedEvents, storeIo } from './helpers.ts'

let app: Context
let logs: Message[]
let backend: FaultyBackend
let fiber: Fiber
let t0: number
let committed: PersistenceCommittedEvent[]
let failed: PersistenceWriteFailedEvent[]

async function mount(config: Record<string, unknown> = {}): Promise<void> {
  ;({ app, logs } = await makeApp())
  backend = new FaultyBackend()
  committed = []
  failed = []
  app.on('persistence/committed', event => void committed.push(event))
  app.on('persistence/write-failed', event => void failed.push(event))
  fiber = await app.plugin(pluginFor(backend), { writeBatchMaxDelayMs: 200, ...config })
}

async function live(id = 'w1'): Promise<Session> {
  const session = app.sessions.create(id as SessionId)
  await vi.advanceTimersByTimeAsync(0) // binding init: lock + scan
  t0 = Date.now()
  return session
}

const chunk = (session: Session, text = 'x') =>
  session.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text } })

/** Fake-clock instants (relative to t0) at which `hook` was called. */
const instants = (hook: 'materialize' | 'append') => backend.calls.filter(c => c.hook === hook).map(c => c.at - t0)
const seqsOf = (records: unknown) => (records as EncodedRecord[]).flatMap(r => Array.from({ length: r.lastSeq - r.seq + 1 }, (_, i) => r.seq + i))

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(async () => {
  backend.heal()
  await fiber?.dispose()
  vi.useRealTimers()
})

describe('write-behind window (02 §2.2)', () => {
  it('P-033 window 200: events at 0 and 150 ms are written as one batch at 200, nothing at 199', async () => {
    await mount()
    const session = await live()
    session.append('turn/start', { turn: 1 })
    await vi.advanceTimersByTimeAsync(150)
    session.append('step/start', { turn: 1, step: 1 })
    await vi.advanceTimersByTimeAsync(49)
    expect(instants('materialize')).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(instants('materialize')).toEqual([200])
    expect(seqsOf(backend.calls.find(c => c.hook === 'materialize')!.args[0])).toEqual([0, 1])
    expect(committed.map(c => [c.fromSeq, c.toSeq, c.source])).toEqual([[0, 2, 'live']])
    expect(committed[0]!.events[0]).toBe(session.events[0])
  })

  it('P-033 20 events 10 ms apart make one batch', async () => {
    await mount()
    const session = await live()
    session.append('turn/start', { turn: 1 })
    session.append('step/start', { turn: 1, step: 1 })
    for (let i = 0; i < 18; i++) {
      await vi.advanceTimersByTimeAsync(10)
      chunk(session)
    }
    await vi.advanceTimersByTimeAsync(400)
    expect(instants('materialize')).toEqual([200])
    expect(instants('append')).toEqual([])
    expect(committed.map(c => [c.fromSeq, c.toSeq])).toEqual([[0, 20]])
  })

  it('P-034 a write blocked until 500 ms, events at 300 and 320: the second batch starts right after the first ends', async () => {
    await mount()
    const session = await live()
    session.append('turn/start', { turn: 1 })
    const release = backend.block('materialize')
    await vi.advanceTimersByTimeAsync(300)
    session.append('step/start', { turn: 1, step: 1 })
    await vi.advanceTimersByTimeAsync(20)
    chunk(session)
    await vi.advanceTimersByTimeAsync(180)
    expect(instants('append')).toEqual([])
    release()
    await vi.advanceTimersByTimeAsync(0)
    expect(instants('materialize')).toEqual([200])
    expect(instants('append')).toEqual([500])
    expect(seqsOf(backend.calls.find(c => c.hook === 'append')!.args[0])).toEqual([1, 2])
  })

  it('P-035 an event during a write that ends with 150 ms of its window left is written 150 ms later', async () => {
    await mount()
    const session = await live()
    session.append('turn/start', { turn: 1 })
    const release = backend.block('materialize')
    await vi.advanceTimersByTimeAsync(250)
    session.append('step/start', { turn: 1, step: 1 }) // window deadline 450
    await vi.advanceTimersByTimeAsync(50)
    release() // the write ends at 300 with 150 ms of the window left
    await vi.advanceTimersByTimeAsync(149)
    expect(instants('append')).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(instants('append')).toEqual([450])
  })
})

describe('flush barrier and failures (02 §2.3, §2.4)', () => {
  it('P-043 a flush resolves at its own target while events keep arriving; two flushes resolve at their own targets', async () => {
    await mount()
    const session = await live()
    session.append('turn/start', { turn: 1 })
    session.append('step/start', { turn: 1, step: 1 })
    const releaseFirst = backend.block('materialize')
    let first = false
    let second = false
    const f1 = app.sessions.flush(session).then(() => { first = true })
    await vi.advanceTimersByTimeAsync(0) // the first batch (seqs 0, 1) is in flight, blocked
    chunk(session)
    chunk(session)
    const f2 = app.sessions.flush(session).then(() => { second = true })
    chunk(session) // keeps arriving after both targets
    const releaseSecond = backend.block('append')
    releaseFirst()
    await vi.advanceTimersByTimeAsync(0)
    expect(first).toBe(true)
    expect(second).toBe(false)
    expect(committed.map(c => c.toSeq)).toEqual([2])
    releaseSecond()
    await vi.advanceTimersByTimeAsync(0)
    await Promise.all([f1, f2])
    expect(second).toBe(true)
    expect(instants('materialize')).toEqual([0])
    expect(seqsOf(backend.calls.find(c => c.hook === 'append')!.args[0])).toEqual([2, 3, 4])
  })

  it('P-044 STORE_IO during a flush rejects it; after healing the next flush stores every event once', async () => {
    await mount()
    const session = await live()
    session.append('turn/start', { turn: 1 })
    session.append('step/start', { turn: 1, step: 1 })
    backend.fail('materialize', () => storeIo(), 1)
    await expect(app.sessions.flush(session)).rejects.toMatchObject({ code: 'STORE_IO' })
    chunk(session)
    await app.sessions.flush(session)
    expect(instants('materialize')).toEqual([0, 0])
    const stored = await storedEvents(backend.inner, 'w1')
    expect(stored.map(e => e.seq)).toEqual([0, 1, 2])
    expect(committed.map(c => [c.fromSeq, c.toSeq])).toEqual([[0, 3]])
  })

  it('P-045 a background STORE_IO warns once, retries at +1000 and +2000 ms, logs the success at info and stores once', async () => {
    await mount()
    const session = await live()
    backend.fail('materialize', () => storeIo(), 2)
    session.append('turn/start', { turn: 1 })
    await vi.advanceTimersByTimeAsync(200)
    expect(instants('materialize')).toEqual([200])
    await vi.advanceTimersByTimeAsync(999)
    expect(instants('materialize')).toEqual([200])
    await vi.advanceTimersByTimeAsync(1)
    expect(instants('materialize')).toEqual([200, 1200])
    await vi.advanceTimersByTimeAsync(2000)
    expect(instants('materialize')).toEqual([200, 1200, 3200])
    expect(logsOf(logs, 'warn')).toHaveLength(1)
    expect(logsOf(logs, 'info')).toEqual(['session "w1": write succeeded after 2 failed attempt(s)'])
    expect(failed.map(f => [f.attempt, f.terminal])).toEqual([[1, false], [2, false]])
    expect((await storedEvents(backend.inner, 'w1')).map(e => e.seq)).toEqual([0])
    expect(committed).toHaveLength(1)
  })

  it('P-045 new events do not shorten the backoff; the delay doubles up to retryMaxDelayMs', async () => {
    await mount({ retryInitialDelayMs: 1000, retryMaxDelayMs: 3000 })
    const session = await live()
    backend.fail('materialize', () => storeIo(), 3)
    session.append('turn/start', { turn: 1 })
    await vi.advanceTimersByTimeAsync(1100)
    session.append('step/start', { turn: 1, step: 1 })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(instants('materialize')).toEqual([200, 1200, 3200, 6200])
    expect((await storedEvents(backend.inner, 'w1')).map(e => e.seq)).toEqual([0, 1])
  })

  it('P-046 a terminal failure rejects every flush with the same object and makes no further backend call', async () => {
    await mount()
    const session = await live()
    const terminal = new SessionPersistenceError('SESSION_CONFLICT', 'session "w1": simulated conflict')
    backend.fail('materialize', () => terminal, 1)
    session.append('turn/start', { turn: 1 })
    const first = await app.sessions.flush(session).catch((e: unknown) => e)
    expect(first).toBe(terminal)
    const calls = backend.calls.length
    session.append('step/start', { turn: 1, step: 1 })
    await vi.advanceTimersByTimeAsync(60_000)
    const second = await app.sessions.flush(session).catch((e: unknown) => e)
    expect(second).toBe(terminal)
    expect(backend.calls.length).toBe(calls)
    expect(logsOf(logs, 'error')).toHaveLength(1)
    expect(failed.map(f => f.terminal)).toEqual([true])
  })
})

describe('window, flush and backoff interplay (02 §2.2–§2.4)', () => {
  it('P-042 a flush cancels the armed window: nothing is written at the old deadline; the next event gets its own window', async () => {
    await mount()
    const session = await live()
    await app.sessions.flush(session) // nothing pending: no I/O, nothing created
    expect(backend.calls.filter(c => c.hook === 'materialize' || c.hook === 'append')).toEqual([])
    expect(backend.inner.store.sessions.has('w1')).toBe(false)
    session.append('turn/start', { turn: 1 }) // arms the window: deadline 200
    await vi.advanceTimersByTimeAsync(50)
    await app.sessions.flush(session)
    expect(instants('materialize')).toEqual([50])
    await vi.advanceTimersByTimeAsync(50)
    session.append('step/start', { turn: 1, step: 1 }) // its own window: deadline 300
    await vi.advanceTimersByTimeAsync(199)
    expect(instants('append')).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(instants('append')).toEqual([300])
    expect(committed.map(c => [c.fromSeq, c.toSeq])).toEqual([[0, 1], [1, 2]])
  })

  it('P-171 a cancelled window\'s expiry writes nothing; an event after it gets a full window from its arrival, again and again', async () => {
    await mount()
    const session = await live()
    session.append('turn/start', { turn: 1 }) // window armed: deadline 200
    await vi.advanceTimersByTimeAsync(10)
    await app.sessions.flush(session) // written at 10; the window is cancelled
    await vi.advanceTimersByTimeAsync(240) // the old deadline (200) passes: nothing to write, nothing written
    expect(instants('append')).toEqual([])
    session.append('step/start', { turn: 1, step: 1 }) // at 250: deadline 450
    await vi.advanceTimersByTimeAsync(199)
    expect(instants('append')).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(instants('append')).toEqual([450])
    for (let round = 0; round < 3; round++) {
      chunk(session)
      await vi.advanceTimersByTimeAsync(30)
      await app.sessions.flush(session)
    }
    expect(instants('append')).toEqual([450, 480, 510, 540])
    chunk(session) // at 540: its own window, deadline 740
    await vi.advanceTimersByTimeAsync(199)
    expect(instants('append')).toEqual([450, 480, 510, 540])
    await vi.advanceTimersByTimeAsync(1)
    expect(instants('append')).toEqual([450, 480, 510, 540, 740])
    expect(committed.map(c => [c.fromSeq, c.toSeq])).toEqual([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6]])
  })

  it('P-171 only an armed window keeps the process alive: after a flush no timer of the writer is referenced', async () => {
    vi.useRealTimers()
    await mount({ writeBatchMaxDelayMs: 60_000 })
    const session = app.sessions.create('w1' as SessionId)
    await app.sessions.flush(session) // bound: lock and scan done, nothing pending
    const timers = (): number => process.getActiveResourcesInfo().filter(name => name === 'Timeout').length
    const idle = timers()
    session.append('turn/start', { turn: 1 })
    expect(timers()).toBe(idle + 1) // the armed window
    await app.sessions.flush(session)
    expect(timers()).toBe(idle) // disarmed: kept for the next window, but unreferenced
    session.append('step/start', { turn: 1, step: 1 })
    expect(timers()).toBe(idle + 1)
    await app.sessions.flush(session)
    expect(timers()).toBe(idle)
    expect(committed.map(c => [c.fromSeq, c.toSeq])).toEqual([[0, 1], [1, 2]])
  })

  it('P-043 an event arriving while a flush drains keeps the window of its arrival once the flush is met', async () => {
    await mount()
    const session = await live()
    session.append('turn/start', { turn: 1 })
    const release = backend.block('materialize')
    const flushed = app.sessions.flush(session) // target 1; the write is blocked
    await vi.advanceTimersByTimeAsync(50)
    session.append('step/start', { turn: 1, step: 1 }) // arrives during the drain: deadline 250
    await vi.advanceTimersByTimeAsync(50)
    release()
    await flushed
    expect(committed.map(c => [c.fromSeq, c.toSeq])).toEqual([[0, 1]])
    await vi.advanceTimersByTimeAsync(149)
    expect(instants('append')).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(instants('append')).toEqual([250])
  })

  it('P-045 a window armed during a failing write does not shorten the backoff', async () => {
    await mount()
    const session = await live()
    session.append('turn/start', { turn: 1 })
    const release = backend.block('materialize')
    backend.fail('materialize', () => storeIo(), 1)
    await vi.advanceTimersByTimeAsync(250) // the first write started at 200 and is blocked
    session.append('step/start', { turn: 1, step: 1 }) // arms a window: deadline 450
    await vi.advanceTimersByTimeAsync(50)
    release() // the write fails at 300: next attempt at 300 + 1000, with both events
    await vi.advanceTimersByTimeAsync(999)
    expect(instants('materialize')).toEqual([200])
    await vi.advanceTimersByTimeAsync(1)
    expect(instants('materialize')).toEqual([200, 1300])
    expect(seqsOf(backend.calls.filter(c => c.hook === 'materialize')[1]!.args[0])).toEqual([0, 1])
  })

  it('P-045 warns for the first failure of a streak, then at most once per retryMaxDelayMs; info once for the success', async () => {
    await mount({ retryInitialDelayMs: 1000, retryMaxDelayMs: 3000 })
    const session = await live()
    backend.fail('materialize', () => storeIo(), 5)
    session.append('turn/start', { turn: 1 })
    await vi.advanceTimersByTimeAsync(20_000)
    expect(instants('materialize')).toEqual([200, 1200, 3200, 6200, 9200, 12_200])
    expect(failed.map(f => f.attempt)).toEqual([1, 2, 3, 4, 5])
    expect(logsOf(logs, 'warn').map(w => w.slice(0, w.indexOf(','))))
      .toEqual(['session "w1": write failed (attempt 1)', 'session "w1": write failed (attempt 3)', 'session "w1": write failed (attempt 4)', 'session "w1": write failed (attempt 5)'])
    expect(logsOf(logs, 'info')).toEqual(['session "w1": write succeeded after 5 failed attempt(s)'])
  })

  it('a retiring session on a failing store keeps retrying on the backoff schedule until it drains', async () => {
    await mount()
    const session = app.sessions.prepare('w2' as SessionId)
    const detach = app.sessions.enter(session)
    app.sessions.announce(session)
    await vi.advanceTimersByTimeAsync(0)
    t0 = Date.now()
    session.append('turn/start', { turn: 1 })
    backend.fail('materialize', () => storeIo(), 3)
    detach()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(instants('materialize')).toEqual([0, 1000, 3000, 7000])
    expect(backend.inner.store.locks.size).toBe(0)
    expect((await storedEvents(backend.inner, 'w2')).map(e => e.seq)).toEqual([0])
  })
})

describe('re-binding a retiring session object (02 §2.1, §2.5)', () => {
  it('a session re-entered and announced while its old writer retires gets a new binding; teardown stores its events', async () => {
    await mount()
    const session = app.sessions.prepare('w3' as SessionId)
    let detach = app.sessions.enter(session)
    app.sessions.announce(session)
    session.append('turn/start', { turn: 1 })
    await app.sessions.flush(session)
    const release = backend.block('append')
    session.append('step/start', { turn: 1, step: 1 })
    detach() // retiring: its last write (seq 1) is blocked
    await vi.advanceTimersByTimeAsync(0)
    detach = app.sessions.enter(session)
    app.sessions.announce(session)
    session.append('step/end', { turn: 1, step: 1 }) // seq 2: after the retiring writer's last batch
    release()
    await vi.advanceTimersByTimeAsync(0)
    await fiber.dispose()
    expect((await storedEvents(backend.inner, 'w3')).map(e => e.seq)).toEqual([0, 1, 2])
    expect(backend.inner.store.locks.size).toBe(0)
    detach()
  })
})
