/**
 * The deterministic script a crash-loop process writes (spec 02 P-090, P-091): a pure function of the process seed,
 * the mode and the first turn number, so the parent regenerates exactly what the child appended and compares the
 * stored log with it. Kill points are `mark` steps: between `tool/call` and `tool/result`, inside an open
 * `compaction/start` bracket, and (in `big` mode) inside 3 MiB batches.
 */

import { createRandom, type Random } from '../random.ts'
import type { LiveAppend } from '../worker/protocol.ts'

/** Plugin event types the crash script uses; registered in every process that reads or writes the log. */
export const CRASH_EVENT_TYPES: readonly string[] = ['compaction/start', 'compaction/end']

/** One step of the script. */
export type ScriptStep =
  | { readonly do: 'append'; readonly append: LiveAppend }
  /** `await sessions.flush(session)`, then report `ack` with the flush target. */
  | { readonly do: 'flush' }
  /** Report `mark`, then pause `ms` (a kill point). */
  | { readonly do: 'mark'; readonly name: 'tool-gap' | 'compaction' | 'batch'; readonly ms: number; readonly callId?: string }
  /** Yield to the event loop (one macrotask) so window timers and writes interleave with appends. */
  | { readonly do: 'yield' }

/** Bytes of one big-mode chunk text. */
export const BIG_CHUNK_BYTES = 64 * 1024
/** Chunks per flushed batch in big mode. */
export const BIG_BATCH = 50

/** The script of one process: every step, bounded by `maxEvents` appends. */
export function crashScript(seed: number, mode: 'mixed' | 'big', firstTurn: number, maxEvents: number): ScriptStep[] {
  const rng = createRandom(seed)
  const steps: ScriptStep[] = []
  let appended = 0
  const add = (type: string, data: unknown, opts?: Record<string, unknown>): void => {
    steps.push({ do: 'append', append: opts === undefined ? { type, data } : { type, data, opts } })
    appended++
  }
  for (let turn = firstTurn; appended < maxEvents; turn++) {
    if (mode === 'big') bigTurn(rng, turn, add, steps)
    else mixedTurn(rng, turn, add, steps)
  }
  return steps
}

/** The appends of a script, in order (what the stored log must hold from the script's first seq on). */
export function scriptAppends(steps: readonly ScriptStep[]): LiveAppend[] {
  const out: LiveAppend[] = []
  for (const step of steps) if (step.do === 'append') out.push(step.append)
  return out
}

type Add = (type: string, data: unknown, opts?: Record<string, unknown>) => void
const APPEND = { surfaceOp: 'append' } as const
const MODEL = { kind: 'model', provider: 'scripted', model: 'crash-1' } as const

function userMessage(turn: number, text: string): unknown {
  return { id: `u-${turn}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }
}

function mixedTurn(rng: Random, turn: number, add: Add, steps: ScriptStep[]): void {
  add('turn/start', { turn })
  add('user/message', userMessage(turn, `question ${turn} #${rng.int(0, 1e6)}`), APPEND)
  if (rng.next() < 0.5) steps.push({ do: 'flush' })
  const stepCount = rng.int(1, 3)
  for (let step = 1; step <= stepCount; step++) {
    add('step/start', { turn, step })
    steps.push({ do: 'yield' })
    const chunks = rng.int(0, 40)
    for (let i = 0; i < chunks; i++) {
      add('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index: 0, text: `w${rng.int(0, 999)} ` } })
      if (i % 8 === 7) steps.push({ do: 'yield' })
    }
    const calls = step < stepCount ? rng.int(1, 2) : rng.int(0, 1)
    const callIds = Array.from({ length: calls }, (_, i) => `c-${turn}-${step}-${i}`)
    const content: unknown[] = [{ type: 'text', text: `step ${step} of turn ${turn}` }]
    for (const id of callIds) content.push({ type: 'tool-call', id, name: 'probe', arguments: `{"n":${rng.int(0, 99)}}` })
    add('assistant/message', { turn, step, message: { id: `a-${turn}-${step}`, role: 'assistant', content, source: MODEL } }, APPEND)
    for (const callId of callIds) {
      add('tool/call', { turn, step, callId, name: 'probe', arguments: '{}' })
      steps.push({ do: 'flush' }, { do: 'mark', name: 'tool-gap', ms: rng.int(0, 8), callId })
      const result = { type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: `probe ${callId} ok` }] }
      add('tool/result', { turn, step, message: { id: `r-${callId}`, role: 'user', content: [result], source: { kind: 'tool', callId } } }, APPEND)
    }
    if (rng.next() < 0.25) {
      add('compaction/start', { turn, step })
      steps.push({ do: 'flush' }, { do: 'mark', name: 'compaction', ms: rng.int(0, 8) })
      add('compaction/end', { turn, step })
    }
    add('step/end', { turn, step })
  }
  add('turn/end', { turn, reason: { kind: 'completed' } })
  if (rng.next() < 0.5) steps.push({ do: 'flush' })
  steps.push({ do: 'yield' })
}

function bigTurn(rng: Random, turn: number, add: Add, steps: ScriptStep[]): void {
  add('turn/start', { turn })
  add('user/message', userMessage(turn, `big question ${turn}`), APPEND)
  add('step/start', { turn, step: 1 })
  const batches = rng.int(1, 3)
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < BIG_BATCH; i++) {
      const fill = String.fromCharCode(97 + rng.int(0, 25))
      add('assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: `${turn}.${b}.${i}:`.padEnd(BIG_CHUNK_BYTES, fill) } })
    }
    steps.push({ do: 'mark', name: 'batch', ms: 0 }, { do: 'flush' })
  }
  const message = { id: `a-${turn}`, role: 'assistant', content: [{ type: 'text', text: `big answer ${turn}` }], source: MODEL }
  add('assistant/message', { turn, step: 1, message }, APPEND)
  add('step/end', { turn, step: 1 })
  add('turn/end', { turn, reason: { kind: 'completed' } })
  steps.push({ do: 'flush' })
}

/** The next turn number after `events`: one more than the largest `turn/start` turn (1 for none). */
export function nextTurn(events: readonly { readonly type: string; readonly data: unknown }[]): number {
  let max = 0
  for (const e of events) {
    if (e.type === 'turn/start') max = Math.max(max, (e.data as { turn: number }).turn)
  }
  return max + 1
}
