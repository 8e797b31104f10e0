/**
 * Crash and kill (spec 02 §2, §4) [kill]: P-090–P-092 with real child processes and SIGKILL at seeded points. The
 * seed is printed and in every title; `LOGBOOK_CRASH_SEED` replays it, `LOGBOOK_CRASH_ITERATIONS` (default 20) sets
 * the P-090 kill count; P-091 runs half as many (at least 5) and P-092 three, so a run kills ≥ 30 processes.
 */

import { readdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { expect, it } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import { runCrashChain, inspectOrNone } from '../crash/chain.ts'
import { BIG_CHUNK_BYTES } from '../crash/script.ts'
import { useHarness } from '../harness.ts'
import { header } from '../events.ts'
import { expectLossless } from '../expect.ts'
import { createRandom, crashIterations, crashSeed } from '../random.ts'
import type { ConformanceOptions } from '../types.ts'
import type { LiveAppend } from '../worker/protocol.ts'

/** Register the `crash` cases. */
export function crashCases(options: ConformanceOptions): void {
  const h = useHarness(options)
  const seed = crashSeed()
  const iterations = crashIterations()
  const bigKills = Math.max(5, Math.ceil(iterations / 2))
  console.info(`[conformance ${options.name}] crash seed ${seed} (replay: LOGBOOK_CRASH_SEED=${seed}); kills: ${iterations} + ${bigKills} + 3`)

  it(`P-090 SIGKILL at ${iterations} seeded points of a live session with flushes: never corrupt, every acknowledged event present, closers accepted (seed ${seed})`, async () => {
    await runCrashChain(h, { mode: 'mixed', kills: iterations, seed, maxEvents: 400 })
  }, 300_000)

  it(`P-091 SIGKILL inside 3 MiB batches of 64 KiB chunks (${bigKills} kills): only unacknowledged events are cut (seed ${seed})`, async () => {
    await runCrashChain(h, { mode: 'big', kills: bigKills, seed: seed ^ 0x5bd1e995, maxEvents: 110 })
  }, 300_000)

  it(`P-092 SIGKILL while materialising a 5 MB first batch: the session is absent or complete, never partial (seed ${seed})`, async () => {
    const rng = createRandom(seed ^ 0x27d4eb2f)
    const m = await h.mount()
    for (let i = 0; i < 3; i++) {
      const id = `mat-${i}`
      const appends: LiveAppend[] = [
        { type: 'turn/start', data: { turn: 1 } },
        { type: 'step/start', data: { turn: 1, step: 1 } },
      ]
      for (let c = 0; c < 80; c++) {
        appends.push({ type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: `${c}:`.padEnd(BIG_CHUNK_BYTES, 'z') } } })
      }
      const child = await h.worker({ config: { writeBatchMaxDelayMs: 60_000 } })
      const delay = rng.int(0, 60)
      const run = child.request({ op: 'live-create', id, cwd: '/home/user/crash', appends, flush: true })
      run.catch(() => {})
      await new Promise(resolve => setTimeout(resolve, delay))
      await child.kill()
      const where = `seed ${seed} kill ${i} after ${delay} ms`
      const stored = await inspectOrNone(m, id)
      if (stored) {
        expect(stored.events.length, where).toBe(appends.length)
        expect(stored.tornTail, where).toBeNull()
        stored.events.forEach((e: SessionEvent, j) => expectLossless({ type: e.type, data: e.data }, appends[j], where))
      } else {
        const handle = await m.persistence.create(header(id, { cwd: '/home/user/crash' }))
        await handle.append([{ type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } } as SessionEvent])
        await handle.close()
      }
      await (await m.persistence.open(id, 'write')).close()
      const location = await m.persistence.locate(id)
      if (h.caps.locate && location) {
        const leftovers = (await readdir(dirname(location))).filter(name => name.endsWith('.tmp'))
        expect(leftovers, where).toEqual([])
      }
    }
  }, 300_000)
}
