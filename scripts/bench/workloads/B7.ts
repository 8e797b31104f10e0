/**
 * B7: rebuild the built-in projections (`stats`, `todos`, `title` of `@logbook/session-projection`) over W. W is
 * appended to a published in-memory session first (untimed); the registry is loaded afterwards, so no cell exists
 * and the timed `rebuild(S)` folds every unit from `init()` over the whole log in a first, cold run; one
 * `snapshot(S)` then reads the views (timed too). Floor: iterate the events of the log, reading each event's type,
 * timed before and after the rebuild and averaged. The target (≤ 50 ms) is absolute; the ratio is reported.
 */

import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId, type SessionEvent } from '@logbook/session'
// The projection package is not a root dependency; its sources are reachable by path (run.ts runs workloads with
// --conditions=source under tsx).
import SessionProjections, { type StatsView } from '@logbook/session-projection'
import { collectGarbage, cpuSince, report, timeMs } from '../harness.ts'
import { appendW, W_TURNS } from '../session-w.ts'

const app = new Context()
await app.plugin(SessionStore)
const session = app.sessions.create(SessionId('w'))
appendW(session)
await app.plugin(SessionProjections, { checkpoint: { enabled: false, everyEvents: 1000 } })
const projections = app.sessionProjections
const events = session.events

/** The floor: one pass over the log reading each event's type (what any fold must at least do). */
const iterate = (): number => timeMs(() => {
  let turns = 0
  for (const event of events) if (event.type === 'turn/start') turns++
  if (turns !== W_TURNS) throw new Error(`B7: floor saw ${turns} turns`)
})

collectGarbage()
const floorBefore = iterate()
collectGarbage()
let values: Readonly<Record<string, unknown>> = {}
let faults = 0
// CPU time of the process (every thread) over the same span: unlike the elapsed time, it does not grow while the
// process waits for a core, so it stays comparable on a loaded machine (reported, not judged).
const cpuBefore = process.cpuUsage()
const rebuildMs = timeMs(() => projections.rebuild(session))
const snapshotMs = timeMs(() => {
  const snapshot = projections.snapshot(session)
  values = snapshot.values
  faults = Object.keys(snapshot.faults).length
})
const cpuMs = cpuSince(cpuBefore) / 1000
collectGarbage()
const floorMs = (floorBefore + iterate()) / 2
// A second rebuild in the same process: the units' code is warm now (reported, not judged).
collectGarbage()
const warmMs = timeMs(() => projections.rebuild(session))

/** The stats view W must give, computed here independently of the package. */
function expectedStats(log: readonly SessionEvent[]): StatsView {
  const s = { turns: 0, steps: 0, toolCalls: 0, toolErrors: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0,
    reasoningTokens: 0, compactions: 0, turnMs: 0, modelMs: 0, toolMs: 0 }
  let turnAt = 0
  let stepAt: number | null = null
  const calls = new Map<string, number>()
  for (const e of log) {
    const data = e.data as Record<string, any>
    switch (e.type) {
      case 'turn/start': s.turns++; turnAt = e.time; break
      case 'turn/end': s.turnMs += e.time - turnAt; break
      case 'step/start': s.steps++; stepAt = e.time; break
      case 'assistant/message':
        s.inputTokens += data.usage.inputTokens
        s.outputTokens += data.usage.outputTokens
        if (stepAt !== null) s.modelMs += e.time - stepAt
        stepAt = null
        break
      case 'tool/call': s.toolCalls++; calls.set(data.callId, e.time); break
      case 'tool/result': s.toolMs += e.time - calls.get(data.message.source.callId)!; break
    }
  }
  return s
}

const expected = expectedStats(events)
if (faults !== 0) throw new Error(`B7: ${faults} faulted units`)
if (JSON.stringify(values.stats) !== JSON.stringify(expected)) {
  throw new Error(`B7: stats ${JSON.stringify(values.stats)} ≠ expected ${JSON.stringify(expected)}`)
}
if (values.todos !== null) throw new Error(`B7: todos ${JSON.stringify(values.todos)}, expected null`)
const firstPrompt = (events[1]!.data as { content: { text: string }[] }).content[0]!.text
const title = Array.from(firstPrompt).length > 60 ? `${Array.from(firstPrompt).slice(0, 59).join('')}…` : firstPrompt
if (values.title !== title) throw new Error(`B7: title ${JSON.stringify(values.title)} ≠ ${JSON.stringify(title)}`)

const figure = rebuildMs + snapshotMs
report({
  workload: 'B7',
  figure,
  floor: floorMs,
  ratio: figure / floorMs,
  extra: {
    'rebuild ms': rebuildMs, 'snapshot ms': snapshotMs, 'cpu ms (all threads)': cpuMs,
    'warm rebuild ms': warmMs, events: events.length,
  },
})
