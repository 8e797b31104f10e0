/**
 * Child entry of B6: `B6-child.ts <memory|jsonl|sqlite> [dir]` runs the scripted agent loop over W-shaped turns in a
 * fresh process and prints its figures as one JSON line `{ ms, events, turns, flushMs, flushes }`.
 *
 * The app is the real stack: `@logbook/session`, `@logbook/llm` with `@logbook/llm-scripted`, `@logbook/tools` and
 * `@logbook/agent-loop`; with a backend (JSONL `fsync`, SQLite `synchronous=FULL`, as B4) it also loads
 * `@logbook/session-checkpoint-policy`, so every step, model request and tool body is preceded by an awaited flush
 * (5 per turn). `memory` loads neither (the in-memory baseline of the persistence share).
 *
 * The script replays W's content: per turn, W's prompt; step 1 answers W's first text and W's tool call; the tool
 * body returns W's 2,048-character result; step 2 answers W's final text, with W's usage. Texts are cut or padded
 * from W's words so each step streams exactly 50 `assistant/chunk`s (block-start/end, deltas, usage, finish), so
 * every turn is W's 111 events; the loop adds one `request/header` and one `request/context` to the session.
 */

import { Context } from '@deepseek-ai/cordis'
import SessionStore, { type SessionEvent, type TokenUsage } from '@logbook/session'
// The loop's packages are not root dependencies; their sources are reachable by path (run.ts runs workloads with
// --conditions=source under tsx).
import Agents from '@logbook/agent-loop'
import Llm from '@logbook/llm'
import Tools from '@logbook/tools'
import * as Scripted from '@logbook/llm-scripted'
import * as CheckpointPolicy from '@logbook/session-checkpoint-policy'
import { collectGarbage } from '../harness.ts'
import { W_CHUNKS_PER_STEP, W_EVENTS_PER_TURN, W_TURNS, wEvents } from '../session-w.ts'
import { backendKind, mount } from './persistence-store.ts'

/** Code points per streamed delta. */
const CHUNK_SIZE = 6
/** Chunks a step streams besides its deltas: block-start and block-end per block, usage, finish. */
const TEXT_STEP_FRAME = 4
const TOOL_STEP_FRAME = 6

interface Turn {
  readonly prompt: string
  readonly first: { readonly text: string; readonly callId: string; readonly name: string; readonly args: string; readonly usage: TokenUsage }
  readonly result: string
  readonly final: { readonly text: string; readonly usage: TokenUsage }
}

/** `text` cut or padded (with its own words, repeated) to exactly `length` code points (W's texts are ASCII). */
function fit(text: string, length: number): string {
  let out = text
  while (out.length < length) out += ` ${text}`
  return out.slice(0, length)
}

/** W's content, turn by turn. */
function wTurns(): Turn[] {
  const turns: Turn[] = []
  const events = wEvents()
  for (let base = 0; base < events.length; base += W_EVENTS_PER_TURN) {
    const at = (offset: number): any => events[base + offset]!.data
    const prompt = at(1).content[0].text as string
    const firstMessage = at(3 + W_CHUNKS_PER_STEP)
    const [text, call] = firstMessage.message.content
    const result = at(5 + W_CHUNKS_PER_STEP).message.content[0].content[0].text as string
    const finalMessage = at(8 + 2 * W_CHUNKS_PER_STEP)
    const argDeltas = Math.ceil(call.arguments.length / CHUNK_SIZE)
    turns.push({
      prompt,
      first: {
        text: fit(text.text, (W_CHUNKS_PER_STEP - TOOL_STEP_FRAME - argDeltas) * CHUNK_SIZE),
        callId: call.id, name: call.name, args: call.arguments, usage: firstMessage.usage,
      },
      result,
      final: { text: fit(finalMessage.message.content[0].text, (W_CHUNKS_PER_STEP - TEXT_STEP_FRAME) * CHUNK_SIZE), usage: finalMessage.usage },
    })
  }
  return turns
}

const mode = process.argv[2]
const turns = wTurns()
const results = new Map(turns.map(t => [t.first.callId, t.result]))
const script = turns.flatMap(t => [
  { text: t.first.text, toolCalls: [{ id: t.first.callId, name: t.first.name, arguments: t.first.args }], usage: t.first.usage },
  { text: t.final.text, usage: t.final.usage },
])

// Time spent awaiting `ctx.sessions.flush` (the checkpoints and the final flush): the loop awaits each one.
let flushMs = 0
let flushes = 0
const flush = SessionStore.prototype.flush
SessionStore.prototype.flush = function (this: SessionStore, ...args: Parameters<SessionStore['flush']>) {
  const start = performance.now()
  flushes++
  return flush.apply(this, args).finally(() => {
    flushMs += performance.now() - start
  })
}

let app: Context
let stop = async (): Promise<void> => {}
if (mode === 'memory') {
  app = new Context()
  await app.plugin(SessionStore)
} else {
  const mounted = await mount(backendKind(mode), process.argv[3]!, { durable: true })
  app = mounted.app
  stop = () => mounted.stop()
  await app.plugin(CheckpointPolicy)
}
await app.plugin(Llm)
await app.plugin(Scripted, { script, chunkSize: CHUNK_SIZE })
await app.plugin(Tools)
for (const name of new Set(turns.map(t => t.first.name))) {
  app.tools.register({
    name,
    description: `the ${name} tool of W`,
    parameters: { type: 'object' },
    execute: (_args, { callId }) => results.get(callId)!,
  })
}
await app.plugin(Agents)

const agent = await app.agents.create({ sessionId: 'w', options: { provider: 'scripted', model: 'w-1' } })
const reasons: string[] = []
flushMs = 0
flushes = 0
collectGarbage()
const start = performance.now()
for (const turn of turns) reasons.push((await agent.send(turn.prompt)).reason.kind)
await agent.dispose()
const ms = performance.now() - start

const events: readonly SessionEvent[] = agent.session.events
const count = (type: string): number => events.reduce((n, e) => (e.type === type ? n + 1 : n), 0)
const failed = reasons.filter(r => r !== 'completed')
if (failed.length > 0) throw new Error(`B6: ${failed.length} turns did not complete (first: ${failed[0]})`)
const requestRecords = count('request/header') + count('request/context')
if (count('assistant/chunk') !== 2 * W_CHUNKS_PER_STEP * W_TURNS) throw new Error(`B6: ${count('assistant/chunk')} chunks`)
if (count('tool/result') !== W_TURNS) throw new Error(`B6: ${count('tool/result')} tool results`)
if (events.length - requestRecords !== W_EVENTS_PER_TURN * W_TURNS) {
  throw new Error(`B6: ${events.length} events (${requestRecords} request records), expected ${W_EVENTS_PER_TURN * W_TURNS} + records`)
}
if (mode !== 'memory') {
  const tail = await app.sessionPersistence.readFrom('w', events.length - 1)
  if (tail.length !== 1 || tail[0]!.seq !== events.length - 1) throw new Error('B6: the stored log does not end at the live seq')
}
await stop()
process.stdout.write(`${JSON.stringify({ ms, events: events.length, turns: reasons.length, flushMs, flushes })}\n`)
process.exit(0)
