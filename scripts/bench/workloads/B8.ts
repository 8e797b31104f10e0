/**
 * B8: one compaction region over a 10,000-node surface (spec 03 §2.6), the summariser scripted. The session is W
 * cut to 2,500 turns (4 surface nodes each), published in memory, with turn 2,501 open; the region covers every node
 * but the newest (retain 0). The figure is the region transaction's time minus the time spent inside the
 * summariser (the scripted model's request, measured around the call). No floor: the target is absolute.
 */

import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@logbook/session'
// The compaction packages, the llm seam and the scripted model are not root dependencies; their sources are
// reachable by path (run.ts runs workloads with --conditions=source under tsx).
import BasicCompaction from '@logbook/compaction-basic'
import Llm from '@logbook/llm'
import * as Scripted from '@logbook/llm-scripted'
import { collectGarbage, report } from '../harness.ts'
import { appendW, wAppendList } from '../session-w.ts'
import { timedRegion } from './compaction-region.ts'

const TURNS = 2500
const NODES = 4 * TURNS

const app = new Context()
await app.plugin(SessionStore)
await app.plugin(Llm)
await app.plugin(Scripted, { script: [{ match: { purpose: 'compaction' }, text: 'Goal: keep going. Work done: 2,500 turns.' }] })
await app.plugin(BasicCompaction, { auto: false })
const compaction = app.compaction as BasicCompaction

const session = app.sessions.create(SessionId('b8'))
const inputs = wAppendList({ turns: TURNS })
// Turn TURNS + 1 opens at the virtual time of the last W event.
appendW(session, [...inputs, { type: 'turn/start', data: { turn: TURNS + 1 }, opts: undefined, time: inputs.at(-1)!.time }])
if (session.surface.nodes.length !== NODES) throw new Error(`B8: surface holds ${session.surface.nodes.length} nodes, expected ${NODES}`)

// As before any model request, the session's derived messages are current; the span is selected as every
// compaction path does (measure, then select), untimed.
session.deriveMessages()
const span = compaction.selectSpan(session, compaction.measure(session), 0)
if (span === null) throw new Error('B8: nothing selected')
collectGarbage()
const { result, totalMs, summariserMs } = await timedRegion(app, session, span)

if (result.shadowedSeqs.length !== NODES - 1) throw new Error(`B8: ${result.shadowedSeqs.length} nodes replaced, expected ${NODES - 1}`)
if (session.surface.nodes.length !== 2 || session.surface.nodes[0] !== result.checkpointSeq) throw new Error('B8: the surface is not [checkpoint, newest]')
report({
  workload: 'B8',
  figure: totalMs - summariserMs,
  floor: null,
  ratio: null,
  extra: { 'region ms (with summariser)': totalMs, 'summariser ms': summariserMs },
})
