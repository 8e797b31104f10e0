/** The flush barrier (spec 02 §2.3): P-042 (P-043–P-046 are [unit]). Timing uses the Config's small windows. */

import { expect, it } from 'vitest'
import { useHarness } from '../harness.ts'
import { expectLossless, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { closeLiveTurn, openLiveTurn } from './write-behind.ts'

const WINDOW_MS = 40
const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** Register the `flush` cases. */
export function flushCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-042 flush resolves once every event below its call-time seq is stored; nothing is rewritten at the old deadline; an idle flush does no I/O', async () => {
    const m = await h.mount({ writeBatchMaxDelayMs: WINDOW_MS })
    const { session, detach } = m.live('s1')
    expect(await m.sessions.flush(session)).toBe(true)
    await rejects(m.persistence.open('s1', 'read'), 'SESSION_NOT_FOUND')
    expect((await m.persistence.list()).items).toEqual([])
    expect(m.committed).toEqual([])
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
    // Past the window armed by the first append: a cancelled window must not write again.
    await sleep(3 * WINDOW_MS)
    expect(m.committed.length).toBe(commits)
    await m.sessions.flush(session)
    expect(m.committed.length).toBe(commits)
    const revision = (await m.persistence.inspect('s1')).revision
    expect(m.committed.at(-1)!.revision).toBe(revision)
    detach()
  })
}
