/**
 * B3: the first fork in the process of the live, published W session at the `turn/end` of turn 500 (in memory).
 * No floor: the target is absolute.
 */

import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId, type Session } from '@logbook/session'
import { collectGarbage, report, timeMs } from '../harness.ts'
import { appendW, wTurnEndSeq } from '../session-w.ts'

const app = new Context()
await app.plugin(SessionStore)
const parent = app.sessions.create(SessionId('w'))
appendW(parent)

const boundary = wTurnEndSeq(500)
let child: Session | undefined
collectGarbage()
const forkMs = timeMs(() => {
  child = app.sessions.fork(parent, boundary, SessionId('w-fork'))
})

// The fork must be the real thing: the prefix, the inherited marker, and nothing else (the cut is at a turn/end).
if (child?.events.length !== boundary + 2) throw new Error(`B3: child holds ${child?.events.length} events, expected ${boundary + 2}`)
if (child.events[boundary] !== parent.events[boundary]) throw new Error('B3: the child does not share the parent prefix')
report({ workload: 'B3', figure: forkMs, floor: null, ratio: null })
