/**
 * B1: append all of W to one published in-memory session with one no-op `session/event` listener (full
 * validation, freeze, surface, derived-message cache; no persistence). Floor: `JSON.parse(JSON.stringify(e))` of
 * every finished W event, in the same process (timed before and after the appends, averaged).
 */

import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@logbook/session'
import { collectGarbage, report, timeMs, withVirtualClock } from '../harness.ts'
import { W_TURNS, wAppendList, wEvents } from '../session-w.ts'

type LooseAppend = (type: string, data: unknown, opts?: unknown) => unknown

const inputs = wAppendList()
const finished = wEvents()

const roundTrip = (): number => timeMs(() => {
  for (const event of finished) JSON.parse(JSON.stringify(event))
})

collectGarbage()
const floorBefore = roundTrip()

const app = new Context()
await app.plugin(SessionStore)
app.on('session/event', () => {})
const session = app.sessions.create(SessionId('w'))
const append = session.append.bind(session) as LooseAppend
let now = 0
let messages = 0

collectGarbage()
const appendMs = withVirtualClock(() => now, () => timeMs(() => {
  for (const input of inputs) {
    now = input.time
    if (input.opts) append(input.type, input.data, input.opts)
    else append(input.type, input.data)
  }
  // The derived-message cache is filled lazily (01 §4.8): one read at the end bills it to the workload.
  messages = session.deriveMessages().length
}))

// The floor is timed before and after the workload and averaged, so load drift on a shared machine hits both alike.
collectGarbage()
const floorMs = (floorBefore + roundTrip()) / 2

if (session.seq !== inputs.length) throw new Error(`B1: session holds ${session.seq} events, expected ${inputs.length}`)
if (messages !== 4 * W_TURNS) throw new Error(`B1: ${messages} derived messages, expected ${4 * W_TURNS}`)
const count = inputs.length
report({
  workload: 'B1',
  figure: count / (appendMs / 1000),
  floor: count / (floorMs / 1000),
  ratio: appendMs / floorMs,
  extra: { 'append ms': appendMs, 'floor ms': floorMs },
})
