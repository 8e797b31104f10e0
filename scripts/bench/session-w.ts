/**
 * The standard session W of docs/benchmarks.md: 1,000 turns × 111 events, generated from a seeded PRNG and a virtual
 * clock, identical on every run. `wAppends` yields live append inputs; `wEvents` yields the finished events.
 */

import type { Session, SessionEvent, SessionEventMap, SessionEventType, SurfaceAppendOptions } from '@logbook/session'
import { withVirtualClock } from './harness.ts'

/** One live append: call `session.append(type, data, opts)` with `Date.now()` returning `time`. */
export interface WAppend {
  readonly type: SessionEventType
  readonly data: SessionEventMap[SessionEventType]
  readonly opts: SurfaceAppendOptions | undefined
  readonly time: number
}

/** Shape knobs; the defaults are W exactly. */
export interface WOptions {
  /** Number of turns (W: 1,000). */
  readonly turns?: number
  /** PRNG seed (W: 0x5eed). */
  readonly seed?: number
  /** Virtual epoch of the first event, ms (W: 1,700,000,000,000). */
  readonly start?: number
}

/** Events per turn of W. */
export const W_EVENTS_PER_TURN = 111
/** Turns in W. */
export const W_TURNS = 1000
/** Chunks per step of W. */
export const W_CHUNKS_PER_STEP = 50
/** Exact length of every W tool result text. */
export const W_TOOL_RESULT_CHARS = 2048

/** Seq of the `turn/end` of turn `t` (1-based) in W. */
export function wTurnEndSeq(turn: number): number {
  return turn * W_EVENTS_PER_TURN - 1
}

/** mulberry32: a small, fast, seedable PRNG; deterministic across runs and platforms. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = (
  'the a to of and in that is for it on with as this be at by from or an are not was but have which can will ' +
  'file test build error session event log turn step tool call result message model user agent surface fork seq ' +
  'write read flush commit replay check value type index chunk stream header context config path line module ' +
  'function return await async import export const let class interface string number array object null true ' +
  'false update delete create list find parse render compile deploy review refactor rename move split merge ' +
  'please could you also then now after before again still only every each some other first last next done'
).split(' ')

const IDENTS = ['session', 'event', 'store', 'cursor', 'buffer', 'chunk', 'result', 'config', 'header', 'writer',
  'reader', 'index', 'record', 'offset', 'payload', 'handle', 'surface', 'node', 'cache', 'entry']

const TOOLS = ['read_file', 'grep', 'run_tests', 'list_dir', 'edit_file', 'shell']

class Gen {
  readonly rand: () => number
  time: number
  seq = 0

  constructor(seed: number, start: number) {
    this.rand = prng(seed)
    this.time = start
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.rand() * (max - min + 1))
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)]!
  }

  words(n: number): string {
    const out: string[] = []
    for (let i = 0; i < n; i++) out.push(this.pick(WORDS))
    return out.join(' ')
  }

  /** Code-like text of exactly `n` characters. */
  code(n: number): string {
    let text = ''
    let depth = 0
    while (text.length < n) {
      const a = this.pick(IDENTS)
      const b = this.pick(IDENTS)
      const pad = '  '.repeat(depth)
      switch (this.int(0, 5)) {
        case 0: text += `${pad}const ${a}${this.int(0, 99)} = await load${cap(b)}(${a}, { strict: true })\n`; break
        case 1: text += `${pad}if (${a}.length > ${this.int(1, 4096)}) {\n`; depth = Math.min(depth + 1, 4); break
        case 2: text += `${pad}return ${a}.${b}[${this.int(0, 31)}] ?? null\n`; if (depth > 0) { depth--; text += `${'  '.repeat(depth)}}\n` } break
        case 3: text += `${pad}// ${this.words(this.int(4, 9))}\n`; break
        case 4: text += `${pad}export function ${a}${cap(b)}(${b}: ${cap(a)}): number {\n`; depth = Math.min(depth + 1, 4); break
        default: text += `${pad}${a}.${b} = ${JSON.stringify(this.words(this.int(1, 3)))}\n`
      }
    }
    return text.slice(0, n)
  }
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}

/**
 * Yield every append of W in order, with the virtual time each append must observe from `Date.now()`.
 * Seqs in `sourceEventSeqs` assume the session starts empty and receives exactly these appends.
 */
export function* wAppends(options: WOptions = {}): Generator<WAppend, void, void> {
  const g = new Gen(options.seed ?? 0x5eed, options.start ?? 1_700_000_000_000)
  const turns = options.turns ?? W_TURNS
  const source = { kind: 'model', provider: 'bench', model: 'w-1' } as const
  const emit = (type: SessionEventType, data: unknown, gap: number, opts?: SurfaceAppendOptions): WAppend => {
    g.time += gap
    g.seq++
    return { type, data: data as SessionEventMap[SessionEventType], opts, time: g.time }
  }
  const chunks = function* (turn: number, step: number): Generator<WAppend, { seqs: number[]; text: string }, void> {
    const seqs: number[] = []
    let text = ''
    for (let i = 0; i < W_CHUNKS_PER_STEP; i++) {
      const piece = (i === 0 ? '' : ' ') + g.pick(WORDS)
      text += piece
      seqs.push(g.seq)
      yield emit('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index: 0, text: piece } }, g.int(15, 45))
    }
    return { seqs, text }
  }
  const usage = () => ({ inputTokens: g.int(2000, 60000), outputTokens: g.int(40, 120) })

  for (let turn = 1; turn <= turns; turn++) {
    yield emit('turn/start', { turn }, g.int(5000, 60000))
    const userSeq = g.seq
    const userData = { id: `user-${userSeq}`, role: 'user', source: { kind: 'user' },
      content: [{ type: 'text', text: g.words(g.int(30, 60)) }] }
    yield emit('user/message', userData, g.int(0, 3), { surfaceOp: 'append' })

    yield emit('step/start', { turn, step: 1 }, g.int(1, 5))
    const first = yield* chunks(turn, 1)
    const callId = `call-${turn}-1`
    const name = g.pick(TOOLS)
    const args = JSON.stringify({ path: `src/${g.pick(IDENTS)}/${g.pick(IDENTS)}.ts`, line: g.int(1, 900) })
    const asstSeq = g.seq
    yield emit('assistant/message', {
      turn, step: 1,
      message: { id: `assistant-${asstSeq}`, role: 'assistant', source,
        content: [{ type: 'text', text: first.text }, { type: 'tool-call', id: callId, name, arguments: args }] },
      usage: usage(),
    }, g.int(0, 2), { surfaceOp: 'append', sourceEventSeqs: first.seqs })
    const callSeq = g.seq
    yield emit('tool/call', { turn, step: 1, callId, name, arguments: args }, g.int(0, 2))
    const resultSeq = g.seq
    yield emit('tool/result', {
      turn, step: 1,
      message: { id: `tool-result-${resultSeq}`, role: 'user', source: { kind: 'tool', callId },
        content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: g.code(W_TOOL_RESULT_CHARS) }] }] },
    }, g.int(150, 900), { surfaceOp: 'append', sourceEventSeqs: [callSeq] })
    yield emit('step/end', { turn, step: 1 }, g.int(0, 2))

    yield emit('step/start', { turn, step: 2 }, g.int(1, 5))
    const second = yield* chunks(turn, 2)
    const finalSeq = g.seq
    yield emit('assistant/message', {
      turn, step: 2,
      message: { id: `assistant-${finalSeq}`, role: 'assistant', source, content: [{ type: 'text', text: second.text }] },
      usage: usage(),
    }, g.int(0, 2), { surfaceOp: 'append', sourceEventSeqs: second.seqs })
    yield emit('step/end', { turn, step: 2 }, g.int(0, 2))
    yield emit('turn/end', { turn, reason: { kind: 'completed' } }, g.int(0, 2))
  }
}

/** All append inputs of W in one array (the benchmarks pre-generate so generation is never timed). */
export function wAppendList(options: WOptions = {}): WAppend[] {
  return [...wAppends(options)]
}

type LooseAppend = (type: string, data: unknown, opts?: unknown) => unknown

/**
 * Append `inputs` (all of W by default) to `session` in order, untimed: `Date.now()` returns each input's virtual
 * time during its append, and the real clock is restored afterwards (also on a throw).
 */
export function appendW(session: Session, inputs: Iterable<WAppend> = wAppendList()): void {
  const append = session.append.bind(session) as LooseAppend
  let now = 0
  withVirtualClock(() => now, () => {
    for (const input of inputs) {
      now = input.time
      if (input.opts) append(input.type, input.data, input.opts)
      else append(input.type, input.data)
    }
  })
}

/**
 * The finished events of W, exactly as a live session would store them (envelope keys in `append` order), as plain
 * unfrozen objects.
 */
export function wEvents(options: WOptions = {}): SessionEvent[] {
  return [...wEventStream(options)]
}

/** The events of `wEvents`, one at a time (a session many times W's size never sits in memory whole). */
export function* wEventStream(options: WOptions = {}): Generator<SessionEvent, void, void> {
  let seq = 0
  for (const a of wAppends(options)) {
    const event: Record<string, unknown> = { type: a.type, seq: seq++, time: a.time, data: a.data }
    if (a.opts) {
      event.surfaceOp = a.opts.surfaceOp
      if (a.opts.sourceEventSeqs) event.sourceEventSeqs = a.opts.sourceEventSeqs
    }
    yield event as unknown as SessionEvent
  }
}
