import fc from 'fast-check'
import { deriveEventMessage, foldSurface, type Session } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { balanceCacheStats, cutPoints } from '../src/balance.ts'
import { entryState, type Summarize } from '../src/index.ts'
import { selectSpan } from '../src/select.ts'
import { boot, filler, LogBuilder } from './helpers.ts'

const summarize: Summarize = async () => ({ summary: 's', provider: 'p', model: 'm', maxTokens: 1, instructionVersion: 1 })

/** Cut points computed from scratch from a fold of the whole log. */
function freshCuts(s: Session): boolean[] {
  const events = [...s.events]
  let counter = 0
  const cuts = [true]
  for (const seq of foldSurface(events).nodes) {
    const message = deriveEventMessage(events[seq]!)
    for (const block of message?.content ?? []) {
      if (block.type === 'tool-call') counter++
      if (block.type === 'tool-result') counter--
    }
    cuts.push(counter === 0)
  }
  return cuts
}

type Op = { kind: 'user'; size: number } | { kind: 'tools'; calls: number } | { kind: 'compact'; retain: number } | { kind: 'log' }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), size: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ kind: fc.constant('tools' as const), calls: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('compact' as const), retain: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ kind: fc.constant('log' as const) }),
)

describe('properties', () => {
  it('the cached balance, the selected spans and entry state agree with a from-scratch fold after any appends and compactions', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
      const env = await boot()
      const log = LogBuilder.create(env.app).startTurn('begin')
      let call = 0
      for (const step of ops) {
        switch (step.kind) {
          case 'user':
            log.user(filler(step.size))
            break
          case 'tools': {
            log.startStep()
            const ids = Array.from({ length: step.calls }, () => `c${++call}`)
            log.assistant(filler(20), ids)
            for (const id of ids) log.result(id, filler(50))
            log.endStep()
            break
          }
          case 'compact': {
            const span = selectSpan(log.s, env.compaction.measure(log.s), step.retain)
            if (span !== null) {
              await env.compaction.runRegion({ session: log.s, span, owner: 'turn', trigger: 'explicit', summarize }).catch((error: { code?: string }) => {
                // A tiny span may not shrink; anything else is a failure of the property.
                if (error.code !== 'SUMMARY_FAILED') throw error
              })
            }
            break
          }
          case 'log':
            log.s.append('todo/write', { todos: [] })
            break
        }
        expect(cutPoints(log.s)).toEqual(freshCuts(log.s))
        expect(entryState(log.s)).toMatchObject({ lock: null, openTurn: 1 })
      }
      const stats = balanceCacheStats(log.s)
      expect(stats.rebuilds).toBeGreaterThanOrEqual(1)
      expect(stats.rebuilds).toBeLessThanOrEqual(1 + log.s.surface.replaceGeneration)
    }), { numRuns: 40 })
  })
})
