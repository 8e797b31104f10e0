/**
 * S2: one search query over 1,000 stored sessions (one W turn each, as B9 stores them), the index built beforehand by
 * another process. The figure is the first `query()` of a fresh process once its index has caught up with the store
 * (the state of a running viewer or app, where the comparison with the store runs at most every
 * `reconcileIntervalMs`): statements are prepared cold, the follower is flushed, hits are checked against the store.
 * The word occurs in most sessions, so bm25 ranks nearly every text that holds it. Reported beside it: that
 * comparison alone (a walk of the whole listing, B9's walk, plus the revision check), the first query of a fresh
 * process, which pays it once, a repeat of the query, and a rare term. The target (≤ 50 ms median) is absolute.
 */

import SessionSearch from '@logbook/session-search'
import { collectGarbage, report } from '../harness.ts'
import { wEvents } from '../session-w.ts'
import { mount, runChild, storeEvents, tempStore } from './persistence-store.ts'
import { B9_SESSIONS } from './B9-common.ts'

/** The common word timed (in W's vocabulary: most sessions hold it). */
const COMMON = 'deploy'
/** A rare identifier: the tool-argument path of a few sessions only. */
const RARE = 'src/cursor/payload.ts'

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  collectGarbage()
  const start = performance.now()
  const value = await work()
  return { ms: performance.now() - start, value }
}

async function measure(mode: string, dir: string): Promise<Record<string, number>> {
  const m = await mount('jsonl', dir, { durable: false })
  const fiber = m.app.plugin(SessionSearch, {})
  await fiber
  const search = m.app.sessionSearch
  try {
    if (mode === 'caught-up') {
      const catchUp = await timed(() => search.catchUp())
      const first = await timed(() => search.query(COMMON))
      const again = await timed(() => search.query(COMMON))
      const rare = await timed(() => search.query(RARE))
      if (first.value.length !== 20 || JSON.stringify(again.value) !== JSON.stringify(first.value)) throw new Error('S2: the common query gave different or too few hits')
      if (catchUp.value.sessions !== B9_SESSIONS || catchUp.value.indexed !== 0) throw new Error(`S2: catch-up listed ${catchUp.value.sessions}, indexed ${catchUp.value.indexed}`)
      if (rare.value.length === 0) throw new Error('S2: the rare query found nothing')
      return { ms: first.ms, againMs: again.ms, rareMs: rare.ms, rareHits: rare.value.length, catchUpMs: catchUp.ms, texts: search.counts().texts }
    }
    const fresh = await timed(() => search.query(COMMON))
    if (fresh.value.length !== 20) throw new Error('S2: the common query gave too few hits')
    return { ms: fresh.ms }
  } finally {
    await fiber.dispose()
    await m.stop()
  }
}

const [step, dir] = process.argv.slice(2)
if (step !== undefined && dir !== undefined) {
  process.stdout.write(`${JSON.stringify(await measure(step, dir))}\n`)
} else {
  const fixture = tempStore('s2')
  try {
    const m = await mount('jsonl', fixture.dir, { durable: false })
    for (let i = 0; i < B9_SESSIONS; i++) {
      const events = wEvents({ turns: 1, seed: 1000 + i, start: 1_700_000_000_000 + i * 3_600_000 })
      await storeEvents(m.persistence, `s${String(i).padStart(4, '0')}`, events)
    }
    const fiber = m.app.plugin(SessionSearch, {})
    await fiber
    await m.app.sessionSearch.reindex()
    await fiber.dispose()
    await m.stop()
    const fresh = JSON.parse(runChild('S2.ts', ['fresh', fixture.dir], 'S2 fresh')) as Record<string, number>
    const run = JSON.parse(runChild('S2.ts', ['caught-up', fixture.dir], 'S2 caught-up')) as Record<string, number>
    report({
      workload: 'S2',
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
