/**
 * The flush barrier (spec 02 §2.3): P-042 (P-043–P-046 are [unit]). [ft]: the writer's window timers run on vitest's
 * fake `setTimeout`/`clearTimeout` (nothing else is faked, so backend I/O stays real); no case asserts a duration.
 */

import { expect, it, vi } from 'vitest'
import { useHarness } from '../harness.ts'
import { expectLossless, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { closeLiveTurn, openLiveTurn } from './write-behind.ts'

const WINDOW_MS = 200

/** Register the `flush` cases. */
export function flushCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-042 flush resolves once every event below its call-time seq is stored; nothing is written at the old deadline; an idle flush does no I/O', async () => {
    const m = await h.mount({ writeBatchMaxDelayMs: WINDOW_MS })
    const { session, detach } = m.live('s1')
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      // Nothing pending: no I/O, nothing created.
      expect(await m.sessions.flush(session)).toBe(true)
      await rejects(m.persistence.open('s1', 'read'), 'SESSION_NOT_FOUND')
      expect((await m.persistence.list()).items).toEqual([])
      expect(m.committed).toEqual([])
      // The first event arms the window (deadline 200); the flush cancels it and stores every event below its target.
      openLiveTurn(session, 1)
      const flushed = m.sessions.flush(session)
      closeLiveTurn(session, 1, 3)
      await flushed
      const stored = await m.persistence.readFrom('s1', 0)
      expect(stored.length).toBeGreaterThanOrEqual(3)
      expectLossless(stored, session.events.slice(0, stored.length))
      await m.sessions.flush(session)
      const commits = m.committed.length
      expectLossless(await m.persistence.readFrom('s1', 0), [...session.events])
      // A new event arms its own window (deadline 50 + 200); past the old deadline nothing is written.
      await vi.advanceTimersByTimeAsync(50)
      session.append('turn/start', { turn: 2 })
      await vi.advanceTimersByTimeAsync(WINDOW_MS - 10)
      // readFrom queues behind any write of the id, so a write started at the old deadline would be seen here.
      expect(await m.persistence.readFrom('s1', session.seq - 1)).toEqual([])
      expect(m.committed.length).toBe(commits)
      await vi.advanceTimersByTimeAsync(10)
      await m.sessions.flush(session)
      expect(m.committed.length).toBe(commits + 1)
      expect(m.committed.at(-1)).toMatchObject({ source: 'live', fromSeq: session.seq - 1, toSeq: session.seq })
      // Flushing again with nothing pending writes nothing.
      await m.sessions.flush(session)
      expect(m.committed.length).toBe(commits + 1)
      expect(m.committed.at(-1)!.revision).toBe((await m.persistence.inspect('s1')).revision)
    } finally {
      vi.useRealTimers()
      detach()
    }
  })
}
