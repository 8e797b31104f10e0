/**
 * Logs for the tests, built through the session core's own append (so every event passes its validator): turns
 * with streamed replies, tool calls and results, compactions, forks and crash closers.
 */

import { forkSeed, openTurnClosers, Session, SessionId, type SessionEvent, type SessionHeader } from '@logbook/session'

/** A tool call of a reply. */
export interface CallSpec {
  readonly id: string
  readonly name: string
  readonly args: string
}

/** Appends typical events to an unpublished session. */
export class LogBuilder {
  readonly session: Session
  private turnNo = 0
  private stepNo = 0

  constructor(id: string, seed?: { seed: SessionEvent[]; inheritedEventCount: number; meta: Record<string, unknown> }) {
    if (seed === undefined) this.session = Session.create(SessionId(id))
    else {
      const header = { version: 1, id: SessionId(id), createdAt: 1_000, ...seed.meta } as SessionHeader
      this.session = Session.create(SessionId(id), { seed: seed.seed, header, inheritedEventCount: seed.inheritedEventCount })
      for (const event of this.session.events) if (event.type === 'turn/start') this.turnNo = event.data.turn
    }
  }

  get events(): readonly SessionEvent[] {
    return this.session.events
  }

  get header(): SessionHeader {
    return this.session.header
  }

  private add(type: string, data: unknown, options?: unknown): SessionEvent {
    return (this.session.append as (t: string, d: unknown, o?: unknown) => SessionEvent)(type, data, options)
  }

  system(text: string): this {
    this.add('system/message', { id: `system-${this.events.length}`, role: 'system', source: { kind: 'system' }, content: [{ type: 'text', text }] }, { surfaceOp: 'append' })
    return this
  }

  /** `turn/start`, the user's message, `step/start`. */
  startTurn(text: string): this {
    this.turnNo++
    this.stepNo = 1
    this.add('turn/start', { turn: this.turnNo })
    this.add('user/message', { id: `user-${this.events.length}`, role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text }] }, { surfaceOp: 'append' })
    this.add('step/start', { turn: this.turnNo, step: this.stepNo })
    return this
  }

  /** Streams `text` word by word, then the reply with `calls`; `finish: false` leaves the stream open (a running step). */
  reply(text: string, options: { calls?: readonly CallSpec[]; reasoning?: string; refusal?: string; finish?: boolean; usage?: { inputTokens: number; outputTokens: number } } = {}): this {
    const turn = this.turnNo
    const step = this.stepNo
    const seqs: number[] = []
    const chunk = (value: unknown): void => void seqs.push(this.add('assistant/chunk', { turn, step, chunk: value }).seq)
    if (options.reasoning !== undefined) chunk({ type: 'reasoning-delta', index: 0, text: options.reasoning })
    for (const word of text.split(/(?<= )/)) chunk({ type: 'text-delta', index: 1, text: word })
    if (options.finish === false) return this
    const usage = options.usage ?? { inputTokens: 100, outputTokens: 10 }
    chunk({ type: 'usage', usage })
    chunk({ type: 'finish', reason: options.calls === undefined ? 'stop' : 'tool-calls' })
    const content = [
      ...(options.reasoning === undefined ? [] : [{ type: 'reasoning', text: options.reasoning }]),
      { type: 'text', text },
      ...(options.refusal === undefined ? [] : [{ type: 'refusal', text: options.refusal }]),
      ...(options.calls ?? []).map(call => ({ type: 'tool-call', id: call.id, name: call.name, arguments: call.args })),
    ]
    this.add('assistant/message', {
      turn, step, usage,
      message: { id: `assistant-${this.events.length}`, role: 'assistant', source: { kind: 'model', provider: 'scripted', model: 'demo' }, content },
    }, { surfaceOp: 'append', sourceEventSeqs: seqs })
    return this
  }

  /** A failed attempt: some chunks, then `finish error`. */
  failedAttempt(text: string, code: string): this {
    const turn = this.turnNo
    const step = this.stepNo
    this.add('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index: 0, text } })
    this.add('assistant/chunk', { turn, step, chunk: { type: 'finish', reason: 'error', error: { message: `${code} happened`, code } } })
    return this
  }

  /** `tool/call` (started). */
  call(call: CallSpec): this {
    this.add('tool/call', { turn: this.turnNo, step: this.stepNo, callId: call.id, name: call.name, arguments: call.args })
    return this
  }

  /** The `tool/result` of `callId`, citing its `tool/call`. */
  result(callId: string, text: string, error?: string): this {
    const callSeq = this.events.findLast(event => event.type === 'tool/call' && event.data.callId === callId)!.seq
    const message = {
      id: `tool-result-${this.events.length}`, role: 'user', source: { kind: 'tool', callId },
      content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], ...(error === undefined ? {} : { isError: true }) }],
    }
    this.add('tool/result', {
      turn: this.turnNo, step: this.stepNo, message, ...(error === undefined ? {} : { error: { name: 'ToolError', code: error } }),
    }, { surfaceOp: 'append', sourceEventSeqs: [callSeq] })
    return this
  }

  /** `step/end` and a next `step/start`. */
  nextStep(): this {
    this.add('step/end', { turn: this.turnNo, step: this.stepNo })
    this.stepNo++
    this.add('step/start', { turn: this.turnNo, step: this.stepNo })
    return this
  }

  /** `step/end`, `turn/end {completed}`. */
  endTurn(): this {
    this.add('step/end', { turn: this.turnNo, step: this.stepNo })
    this.add('turn/end', { turn: this.turnNo, reason: { kind: 'completed' } })
    return this
  }

  /** A whole manual compaction bracket replacing the surface nodes from position `from` to `to`. */
  compact(from: number, to: number, summary: string, id = '00000000-0000-4000-8000-000000000001'): this {
    const nodes = this.session.surface.nodes
    const shadowed = nodes.slice(from, to + 1)
    const start = this.add('compaction/start', { compactionId: id, turn: null, trigger: 'manual' }).seq
    const summarySeq = this.add('compaction/summary', {
      compactionId: id, summary, shadowedRange: { start: shadowed[0], end: shadowed.at(-1) }, shadowedSeqs: shadowed,
      shadowedTokenCount: 900, summaryTokenCount: 120, provider: 'scripted', model: 'demo', maxTokens: 8192, instructionVersion: 1,
      usage: { inputTokens: 50, outputTokens: 5 },
    }).seq
    this.add('user/message', {
      id: `compaction-${id}`, role: 'user', source: { kind: 'plugin', plugin: 'compaction' }, content: [{ type: 'text', text: `framed: ${summary}` }],
    }, { surfaceOp: { op: 'replace', start: shadowed[0], end: shadowed.at(-1) }, sourceEventSeqs: [start, summarySeq, ...shadowed] })
    this.add('compaction/end', { compactionId: id, turn: null })
    return this
  }

  /** The log plus the closers a resume would append (`interrupted`). */
  crashed(): SessionEvent[] {
    return [...this.events, ...openTurnClosers(this.events, { kind: 'interrupted' })]
  }

  /** A fork child cut after `boundary`. */
  fork(childId: string, boundary: number): LogBuilder {
    const { seed, inheritedEventCount, meta } = forkSeed(this.header, this.events, boundary)
    return new LogBuilder(childId, { seed, inheritedEventCount, meta: meta as Record<string, unknown> })
  }
}
