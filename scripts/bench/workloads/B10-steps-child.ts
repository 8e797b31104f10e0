/**
 * One scale of B10-steps (see B10-steps.ts) in a fresh process: `B10-steps-child.ts <scale>` builds a live, published
 * in-memory session of `scale` × W's turns and times each step once, cold, in this order — append every event,
 * snapshot the surface, derive the messages, rebuild the built-in projections, fork at the `turn/end` of the middle
 * turn, measure and select the compaction span, run that compaction region (minus the summariser's own time) — and
 * prints one JSON line: per step its milliseconds and the units it covered. Garbage is collected before each step
 * (`settle`), so one step's garbage is not billed to the next.
 */

import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId, type Session } from '@logbook/session'
// The compaction, projection and model packages are not root dependencies; their sources are reachable by path (the
// bench runs workloads with --conditions=source under tsx).
import BasicCompaction from '@logbook/compaction-basic'
import Llm from '@logbook/llm'
import * as Scripted from '@logbook/llm-scripted'
import SessionProjections, { type StatsView } from '@logbook/session-projection'
import { collectGarbage, timeMs } from '../harness.ts'
import { appendW, W_TURNS, wAppendList, wTurnEndSeq } from '../session-w.ts'
import { timedRegion } from './compaction-region.ts'

/** One timed step: its milliseconds and how many units (events or surface nodes) it covered. */
export interface StepTime {
  readonly ms: number
  readonly units: number
}

/**
 * Collect garbage, then leave the event loop idle for a moment: the collector's concurrent sweeping of a heap of
 * 10 × W (over half a GiB) then finishes before the next timed step instead of during it, where it would bill the
 * forced collection's after-work to that step (tens of ms at 10 × W, next to nothing at W).
 */
async function settle(): Promise<void> {
  collectGarbage()
  await new Promise(resolve => setTimeout(resolve, 100))
}

async function main(scale: number): Promise<Record<string, StepTime>> {
  const turns = W_TURNS * scale
  const app = new Context()
  await app.plugin(SessionStore)
  await app.plugin(Llm)
  await app.plugin(Scripted, { script: [{ match: { purpose: 'compaction' }, text: 'Goal: keep going. Work done: every turn so far.' }] })
  await app.plugin(BasicCompaction, { auto: false })
  await app.plugin(SessionProjections, { checkpoint: { enabled: false, everyEvents: 1000 } })
  const compaction = app.compaction as BasicCompaction
  const projections = app.sessionProjections

  const inputs = wAppendList({ turns })
  // One more turn opens, so the compaction region runs inside a turn as it does before a model request.
  inputs.push({ type: 'turn/start', data: { turn: turns + 1 }, opts: undefined, time: inputs.at(-1)!.time })
  const session: Session = app.sessions.create(SessionId('b10-steps'))

  await settle()
  const appendMs = timeMs(() => appendW(session, inputs))
  const events = session.seq
  if (events !== inputs.length) throw new Error(`B10-steps: the session holds ${events} events, expected ${inputs.length}`)
  inputs.length = 0

  await settle()
  let nodes = 0
  const surfaceMs = timeMs(() => {
    nodes = session.surface.nodes.length
  })
  if (nodes !== 4 * turns) throw new Error(`B10-steps: the surface holds ${nodes} nodes, expected ${4 * turns}`)

  await settle()
  let messages = 0
  const deriveMs = timeMs(() => {
    messages = session.deriveMessages().length
  })
  if (messages === 0) throw new Error('B10-steps: no derived messages')

  await settle()
  let stats: StatsView | undefined
  const projectionsMs = timeMs(() => {
    projections.rebuild(session)
    stats = projections.snapshot(session).values['stats'] as StatsView
  })
  if (stats?.turns !== turns + 1) throw new Error(`B10-steps: stats counted ${stats?.turns} turns, expected ${turns + 1}`)

  await settle()
  const cut = wTurnEndSeq(turns / 2)
  let child: Session | undefined
  const forkMs = timeMs(() => {
    child = app.sessions.fork(session, cut, SessionId('b10-steps-fork'))
  })
  if (child?.events.length !== cut + 2) throw new Error(`B10-steps: the fork holds ${child?.events.length} events, expected ${cut + 2}`)

  await settle()
  let span: ReturnType<BasicCompaction['selectSpan']> = null
  const selectMs = timeMs(() => {
    span = compaction.selectSpan(session, compaction.measure(session), 0)
  })
  if (span === null) throw new Error('B10-steps: no compaction span selected')

  await settle()
  const { result, totalMs, summariserMs } = await timedRegion(app, session, span)
  const compactMs = totalMs - summariserMs
  if (session.surface.nodes.length !== 2) throw new Error(`B10-steps: ${session.surface.nodes.length} nodes after compaction, expected 2`)

  return {
    append: { ms: appendMs, units: events },
    surface: { ms: surfaceMs, units: nodes },
    derive: { ms: deriveMs, units: nodes },
    projections: { ms: projectionsMs, units: events },
    fork: { ms: forkMs, units: cut + 1 },
    select: { ms: selectMs, units: nodes },
    compact: { ms: compactMs, units: result.shadowedSeqs.length },
  }
}

const scale = Number(process.argv[2])
if (!Number.isSafeInteger(scale) || scale < 1) throw new Error('usage: B10-steps-child.ts <scale>')
process.stdout.write(`${JSON.stringify(await main(scale))}\n`)
