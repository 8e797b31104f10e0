/**
 * S2 and B12-search: one search query over stored sessions (one W turn each, as B9 stores them; 1,000 for S2, 10,000
 * for B12), the index built beforehand by another process. The figure is the first `query()` of a fresh process once
 * its index has caught up with the store (the state of a running viewer or app, where the comparison with the store
 * runs at most every `reconcileIntervalMs`): statements are prepared cold, the follower is flushed, hits are checked
 * against the store. The word occurs in most sessions, so bm25 ranks nearly every text that holds it. Reported beside
 * it: that comparison alone (a walk of the whole listing, B9's walk, plus the revision check), the first query of a
 * fresh process, which pays it once, a repeat of the query, and a rare term. The target (≤ 50 ms median) is absolute.
 * The timed steps run in `S2-child.ts`.
 */

import SessionSearch from '@logbook/session-search'
import { report } from '../harness.ts'
import { mount, runChild, storeSessions, tempStore } from './persistence-store.ts'

/** Stores `sessions` sessions in JSONL, builds their index, then reports the figures of two fresh processes as `workload`. */
export async function runSearch(workload: 'S2' | 'B12-search', sessions: number): Promise<void> {
  const fixture = tempStore(workload.toLowerCase())
  try {
    const m = await mount('jsonl', fixture.dir, { durable: false })
    await storeSessions(m.persistence, sessions)
    const fiber = m.app.plugin(SessionSearch, {})
    await fiber
    await m.app.sessionSearch.reindex()
    await fiber.dispose()
    await m.stop()
    const fresh = JSON.parse(runChild('S2-child.ts', ['fresh', fixture.dir, String(sessions)], `${workload} fresh`)) as Record<string, number>
    const run = JSON.parse(runChild('S2-child.ts', ['caught-up', fixture.dir, String(sessions)], `${workload} caught-up`)) as Record<string, number>
    report({
      workload,
      figure: run.ms!,
      floor: null,
      ratio: null,
      extra: {
        'comparison with the store (listing walk) ms': run.catchUpMs!, 'first query of a fresh process (walk included) ms': fresh.ms!,
        'repeat query ms': run.againMs!, 'rare term ms': run.rareMs!, 'rare term hits': run.rareHits!, texts: run.texts!,
      },
    })
  } finally {
    fixture.remove()
  }
}
