/**
 * S1: build the full-text index over W (111,000 events) from its JSONL store: `ctx.sessionSearch.reindex()` in a
 * fresh process — read W back from the store, fold every event, write both FTS5 indexes. W is stored first by this
 * process (not timed) in a temp dir, removed afterwards. A separate fresh process times reading W back alone
 * (`readFrom(0)`), reported beside the figure to show the indexing's own share. The target (≤ 2 s) is absolute.
 */

import { statSync } from 'node:fs'
import { join } from 'node:path'
import SessionSearch from '@logbook/session-search'
import { collectGarbage, report } from '../harness.ts'
import { W_TURNS, wEvents } from '../session-w.ts'
import { mount, runChild, storeEvents, storePath, tempStore } from './persistence-store.ts'

/** Texts W gives: per turn the prompt, two replies, the tool's name, arguments and result. */
const W_TEXTS = W_TURNS * 6

async function measure(step: string, dir: string): Promise<Record<string, number>> {
  const m = await mount('jsonl', dir, { durable: false })
  try {
    if (step === 'read') {
      collectGarbage()
      const start = performance.now()
      const events = await m.persistence.readFrom('w', 0)
      const ms = performance.now() - start
      return { ms, events: events.length }
    }
    const fiber = m.app.plugin(SessionSearch, {})
    await fiber
    const search = m.app.sessionSearch
    collectGarbage()
    const start = performance.now()
    const result = await search.reindex()
    const ms = performance.now() - start
    const { texts } = search.counts()
    const hits = await search.query('deploy', { limit: 5 })
    if (result.indexed !== 1 || texts !== W_TEXTS || hits.length !== 5) {
      throw new Error(`S1: indexed ${result.indexed} sessions, ${texts} texts (expected ${W_TEXTS}), ${hits.length} hits`)
    }
    await fiber.dispose()
    // Closing the last connection checkpoints the WAL into the file.
    const index = join(storePath('jsonl', dir), '.search-index.sqlite')
    return { ms, texts, indexBytes: statSync(index).size }
  } finally {
    await m.stop()
  }
}

const [step, dir] = process.argv.slice(2)
if (step !== undefined && dir !== undefined) {
  process.stdout.write(`${JSON.stringify(await measure(step, dir))}\n`)
} else {
  const fixture = tempStore('s1')
  try {
    const m = await mount('jsonl', fixture.dir, { durable: false })
    await storeEvents(m.persistence, 'w', wEvents())
    await m.stop()
    const read = JSON.parse(runChild('S1.ts', ['read', fixture.dir], 'S1 read')) as { ms: number; events: number }
    const run = JSON.parse(runChild('S1.ts', ['index', fixture.dir], 'S1 index')) as { ms: number; texts: number; indexBytes: number }
    report({
      workload: 'S1',
      figure: run.ms,
      floor: null,
      ratio: null,
      extra: { 'read W back alone ms': read.ms, 'indexing share ms': run.ms - read.ms, texts: run.texts, 'index MB': run.indexBytes / 1e6 },
    })
  } finally {
    fixture.remove()
  }
}
