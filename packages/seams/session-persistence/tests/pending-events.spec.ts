/**
 * The live writer's pending events (spec 02 §2.2: references to the pending events, never copies): batches are
 * served from what `session/event` delivered when that is exactly the batch, else read from the log, so a delivery
 * the writer has not seen yet never changes what is written.
 */
import type { Context, Fiber } from '@deepseek-ai/cordis'
import type { Session, SessionEvent, SessionId } from '@logbook/session'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { PendingEvents } from '../src/pending-events.ts'
import type { PersistenceCommittedEvent } from '../src/types.ts'
import { FaultyBackend, makeApp, pluginFor, storedEvents } from './helpers.ts'

const event = (seq: number): SessionEvent => Object.freeze({ type: 'test/e', seq, time: 0, data: {} }) as unknown as SessionEvent

/** A stand-in exposing only `events`, the one member `take` reads. */
const sessionOf = (events: readonly SessionEvent[]): Session => ({ events }) as unknown as Session

describe('PendingEvents', () => {
  it('takes the delivered objects themselves when they are exactly the batch', () => {
    const log = [event(0), event(1), event(2)]
    const pending = new PendingEvents(0)
    for (const e of log) pending.add(e)
    const batch = pending.take(0, 3, sessionOf([]))
    expect(batch).toHaveLength(3)
    batch.forEach((e, i) => expect(e).toBe(log[i]))
  })

  it('reads the log when a delivery is missing, repeated or out of order', () => {
    const log = [event(0), event(1), event(2), event(3)]
    const session = sessionOf(log)
    const cases: number[][] = [[0, 2, 3], [0, 1, 1, 2, 3], [0, 2, 1, 3], []]
    for (const order of cases) {
      const pending = new PendingEvents(0)
      for (const seq of order) pending.add(log[seq]!)
      const batch = pending.take(0, 4, session)
      expect(batch).toEqual(log)
      batch.forEach((e, i) => expect(e).toBe(log[i]))
    }
  })

  it('forgets everything before the end of a taken batch; the next batch starts there', () => {
    const log = [event(0), event(1), event(2), event(3), event(4)]
    const pending = new PendingEvents(0)
    for (const e of log.slice(0, 3)) pending.add(e)
    expect(pending.take(0, 2, sessionOf(log))).toEqual(log.slice(0, 2)) // not exact: read from the log
    pending.add(log[3]!) // seq 3 after a take ending at 2: a new run
    pending.add(log[4]!)
    expect(pending.take(2, 5, sessionOf(log))).toEqual(log.slice(2, 5))
    pending.add(event(5))
    pending.clear()
    expect(pending.take(5, 6, sessionOf([...log, event(5)]))).toEqual([event(5)])
  })
})

describe('live writer batches (02 §2.2)', () => {
  let app: Context
  let fiber: Fiber
  let backend: FaultyBackend

  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(async () => {
    await fiber?.dispose()
    vi.useRealTimers()
  })

  it('a flush run by an earlier session/event listener, before the writer saw the event, still writes every event once in order', async () => {
    ;({ app } = await makeApp())
    const flushes: Promise<boolean>[] = []
    // Registered before the plugin: runs before the writer's own session/event listener.
    app.on('session/event', (session, e) => {
      if (e.type === 'step/start') flushes.push(app.sessions.flush(session))
    })
    backend = new FaultyBackend()
    const committed: PersistenceCommittedEvent[] = []
    app.on('persistence/committed', c => void committed.push(c))
    fiber = await app.plugin(pluginFor(backend), { writeBatchMaxDelayMs: 200 })
    const session = app.sessions.create('pe' as SessionId)
    await vi.advanceTimersByTimeAsync(0)
    for (let step = 1; step <= 3; step++) {
      session.append('turn/start', { turn: step })
      session.append('step/start', { turn: step, step: 1 })
      session.append('step/end', { turn: step, step: 1 })
      session.append('turn/end', { turn: step, reason: { kind: 'completed' } })
      await vi.advanceTimersByTimeAsync(0)
    }
    await Promise.all(flushes)
    await app.sessions.flush(session)
    const written = committed.flatMap(c => [...c.events])
    expect(written).toHaveLength(session.seq)
    written.forEach((e, i) => expect(e).toBe(session.events[i]))
    expect(committed.map(c => c.fromSeq)).toEqual(committed.map((_, i) => (i === 0 ? 0 : committed[i - 1]!.toSeq)))
    expect((await storedEvents(backend.inner, 'pe')).map(e => e.seq)).toEqual(session.events.map(e => e.seq))
  })
})
