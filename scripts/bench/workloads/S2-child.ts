/**
 * Child entry of S2 and B12-search (see S2-common.ts): `S2-child.ts <mode> <dir> <sessions>` mounts the JSONL store in
 * `dir` with its search index and prints one JSON line. `caught-up`: the catch-up, then the timed common query, a
 * repeat and a rare term; `fresh`: the common query alone, which pays the catch-up itself.
 */

import SessionSearch from '@logbook/session-search'
import { collectGarbage } from '../harness.ts'
import { mount } from './persistence-store.ts'

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

async function measure(mode: string, dir: string, sessions: number): Promise<Record<string, number>> {
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
      if (first.value.length !== 20 || JSON.stringify(again.value) !== JSON.stringify(first.value)) throw new Error('search: the common query gave different or too few hits')
      if (catchUp.value.sessions !== sessions || catchUp.value.indexed !== 0) throw new Error(`search: catch-up listed ${catchUp.value.sessions}, indexed ${catchUp.value.indexed}, expected ${sessions} and 0`)
      if (rare.value.length === 0) throw new Error('search: the rare query found nothing')
      return { ms: first.ms, againMs: again.ms, rareMs: rare.ms, rareHits: rare.value.length, catchUpMs: catchUp.ms, texts: search.counts().texts }
    }
    if (mode !== 'fresh') throw new Error(`unknown mode ${mode}`)
    const fresh = await timed(() => search.query(COMMON))
    if (fresh.value.length !== 20) throw new Error('search: the common query gave too few hits')
    return { ms: fresh.ms }
  } finally {
    await fiber.dispose()
    await m.stop()
  }
}

const [mode, dir, sessions] = process.argv.slice(2)
if (mode === undefined || dir === undefined || sessions === undefined) throw new Error('usage: S2-child.ts <caught-up|fresh> <dir> <sessions>')
process.stdout.write(`${JSON.stringify(await measure(mode, dir, Number(sessions)))}\n`)
