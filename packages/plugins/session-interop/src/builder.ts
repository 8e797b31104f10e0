/**
 * The one builder that turns a source-neutral conversation (`ImportItem`s) into a Logbook log whose relations hold
 * (01 §9): a prompt after a final answer starts a turn, each model response is a step (`step/start`, the
 * request header when the model changed, `assistant/message`, a `tool/call` per requested call), each tool result
 * answers its call in that step, a call the source never answered gets a synthetic result saying so, and a
 * compaction becomes the compaction plugin's own bracket and surface replace (compaction.ts). Times are the
 * source's, never decreasing.
 */

import {
  assertNever, CallId, MessageId, TOOL_OUTCOME_UNKNOWN, type AssistantMessage, type SessionEvent, type SessionEventMap,
  type SessionEventType, type SurfaceOp, type TurnEndReason,
} from '@logbook/session'
import { SESSION_TITLE_EVENT } from '@logbook/session-projection'
import { appendCompaction } from './compaction.ts'
import { SurfaceTrack } from './surface-track.ts'
import type {
  AssistantItem, CompactionItem, ImportItem, ItemStop, SystemItem, ToolResultItem, UserItem,
} from './types.ts'

/** What the builder needs to know about its source. */
export interface BuilderSource {
  /** The source tool's display name, used in synthetic texts ("Claude Code"). */
  readonly toolName: string
  /** Seeds the derived compaction ids (the source session id). */
  readonly idSeed: string
  /** The time of events before the first timed item. */
  readonly startTime: number
  /** Records one line about a noteworthy decision. */
  readonly note: (text: string) => void
  /** Counts a record (or part) that became no event, by label; a `key` counts each source record once. */
  readonly skip: (label: string, key?: string) => void
}

interface Pending {
  readonly callSeq: number
}

/** Append options of one event. */
export interface PushOptions {
  readonly surfaceOp?: SurfaceOp
  readonly sources?: readonly number[]
  readonly ignorable?: true
}

/** The synthetic text of a call whose result the source never recorded. */
export function missingResultText(toolName: string): string {
  return `The ${toolName} transcript records this tool call but no result for it, so its outcome is unknown. `
    + 'Before retrying it, check whether it already took effect.'
}

/** Builds one log; `add` each item in order, then `finish`. */
export class EventBuilder {
  readonly events: SessionEvent[]
  /** The seq of the first model-visible event of each keyed item. */
  readonly keySeqs: Map<string, number>
  readonly surface: SurfaceTrack
  private time: number
  private turn: number | null = null
  private nextTurn: number
  private step: number | null = null
  private nextStep = 1
  private turnHasModel = false
  private lastStop: ItemStop | undefined
  private lastError: string | undefined
  private lastHadCalls = false
  private unansweredInTurn = false
  private pending = new Map<string, Pending>()
  private header: { provider: string; model: string } | undefined
  private title: string | undefined

  /** A builder for a new log, or one continuing `seed` (a fork child's seed, whose turns are all closed). */
  constructor(readonly source: BuilderSource, seed: readonly SessionEvent[] = [], keySeqs?: ReadonlyMap<string, number>) {
    this.events = [...seed]
    this.keySeqs = new Map(keySeqs)
    this.surface = new SurfaceTrack(seed)
    this.time = seed.at(-1)?.time ?? source.startTime
    let lastTurn = 0
    for (const event of seed) {
      if (event.type === 'turn/start') lastTurn = event.data.turn
      if (event.type === 'request/header') this.header = { provider: event.data.header.config.provider, model: event.data.header.config.model }
    }
    this.nextTurn = lastTurn + 1
  }

  /** Append one event at the current time and track the surface; returns its seq. */
  push<T extends SessionEventType>(type: T, data: SessionEventMap[T], options: PushOptions = {}): number {
    const seq = this.events.length
    const event: Record<string, unknown> = { type, seq, time: this.time, data }
    if (options.ignorable === true) event.ignorable = true
    if (options.surfaceOp !== undefined) event.surfaceOp = options.surfaceOp
    if (options.sources !== undefined) event.sourceEventSeqs = [...options.sources]
    this.events.push(event as unknown as SessionEvent)
    this.surface.apply(event as unknown as SessionEvent)
    return seq
  }

  /** The open turn, or null. */
  get openTurn(): number | null {
    return this.turn
  }

  /** The provider and model of the newest request header, if any. */
  get model(): { provider: string; model: string } | undefined {
    return this.header
  }

  /** Add one item. */
  add(item: ImportItem): void {
    switch (item.kind) {
      case 'system': return this.system(item)
      case 'user': return this.user(item)
      case 'assistant': return this.assistant(item)
      case 'tool-result': return this.toolResult(item)
      case 'compaction': return this.compaction(item)
      case 'title':
        this.title = item.title
        return
      case 'turn-end':
        this.at(item.time)
        if (this.turn !== null) this.closeTurn(item.reason)
        return
      default: return assertNever(item)
    }
  }

  /** Close what is open and append the title; returns the log. */
  finish(): SessionEvent[] {
    if (this.turn !== null) this.closeTurn()
    if (this.title !== undefined) this.push(SESSION_TITLE_EVENT, { title: this.title }, { ignorable: true })
    return this.events
  }

  /** Move the clock to `time` (never back): closers of what came before keep the earlier time. */
  private at(time: number | undefined): void {
    if (time !== undefined && time > this.time) this.time = time
  }

  private mark(key: string | undefined): void {
    if (key !== undefined && !this.keySeqs.has(key)) this.keySeqs.set(key, this.events.length)
  }

  private system(item: SystemItem): void {
    this.at(item.time)
    this.mark(item.key)
    const id = MessageId(item.key ?? `system-${this.events.length}`)
    this.push('system/message', { id, role: 'system', source: { kind: 'system' }, content: [{ type: 'text', text: item.text }] }, { surfaceOp: 'append' })
  }

  private user(item: UserItem): void {
    if (item.content.length === 0) {
      this.source.skip('empty user message', item.key)
      return
    }
    // After a final answer the turn is over; a message sent beside tool calls and their results stays in its turn
    // (the model answers it with them). Only the user's own prompt opens a turn: injected context sits between turns.
    if (this.turn !== null && this.turnHasModel && !this.lastHadCalls) this.closeTurn()
    this.at(item.time)
    if (this.turn === null && (item.source === undefined || item.source.kind === 'user')) this.openNewTurn()
    this.mark(item.key)
    const id = MessageId(item.key ?? `user-${this.events.length}`)
    this.push('user/message', { id, role: 'user', source: item.source ?? { kind: 'user' }, content: [...item.content] }, { surfaceOp: 'append' })
  }

  private assistant(item: AssistantItem): void {
    if (this.step !== null) this.closeStep()
    if (this.turn === null) this.openNewTurn()
    const turn = this.turn!
    const step = this.nextStep++
    this.step = step
    this.push('step/start', { turn, step })
    const { provider, model } = item
    if (this.header?.provider !== provider || this.header.model !== model) {
      const reason = this.header === undefined ? 'initial' : 'change'
      this.header = { provider, model }
      this.push('request/header', { header: { config: { provider, model } }, reason })
      this.push('request/context', { provider, model })
    }
    // The request went out when its input was complete; the response arrived at the item's time.
    this.at(item.time)
    this.mark(item.key)
    const content = this.uniqueCalls(item)
    const message: AssistantMessage = {
      id: MessageId(item.id ?? item.key ?? `assistant-${this.events.length}`), role: 'assistant',
      source: { kind: 'model', provider, model, ...(item.replayState === undefined ? {} : { replayState: item.replayState }) },
      content,
    }
    this.push('assistant/message', {
      turn, step, message, ...(item.usage === undefined ? { usageMissing: true } : { usage: item.usage }),
      ...(item.rawStop === undefined ? {} : { rawFinishReason: item.rawStop }),
    }, { surfaceOp: 'append' })
    for (const block of content) {
      if (block.type !== 'tool-call') continue
      const callSeq = this.push('tool/call', { turn, step, callId: block.id, name: block.name, arguments: block.arguments })
      this.pending.set(block.id, { callSeq })
    }
    this.turnHasModel = true
    this.lastStop = item.stop
    this.lastError = item.errorMessage
    this.lastHadCalls = content.some(block => block.type === 'tool-call')
  }

  /** The blocks with every repeated call id after the first dropped (a call can be requested once per step). */
  private uniqueCalls(item: AssistantItem): AssistantMessage['content'][number][] {
    const blocks = item.blocks
    const seen = new Set<string>()
    return blocks.filter(block => {
      if (block.type !== 'tool-call') return true
      if (!seen.has(block.id)) return seen.add(block.id)
      this.source.note(`a repeated tool call id ${block.id} in one response was dropped`)
      this.source.skip('repeated tool call', `${item.key ?? ''}:${block.id}`)
      return false
    })
  }

  private toolResult(item: ToolResultItem): void {
    const pending = this.step === null ? undefined : this.pending.get(item.callId)
    if (pending === undefined) {
      this.source.note(`a tool result for call ${item.callId}, which no open model response requested, was skipped`)
      this.source.skip('tool result without its call', item.key ?? item.callId)
      return
    }
    this.at(item.time)
    this.mark(item.key)
    const callId = CallId(item.callId)
    const block = { type: 'tool-result' as const, toolCallId: callId, content: [...item.content], ...(item.isError ? { isError: true } : {}) }
    this.push('tool/result', {
      turn: this.turn!, step: this.step!,
      message: { id: MessageId(item.key ?? `result-${item.callId}`), role: 'user', source: { kind: 'tool', callId }, content: [block] },
      ...(item.isError ? { error: { name: 'ToolError', code: 'TOOL_ERROR' } } : {}),
    }, { surfaceOp: 'append', sources: [pending.callSeq] })
    this.pending.delete(item.callId)
  }

  private compaction(item: CompactionItem): void {
    // After a final answer the turn is over, so the compaction sits between turns; after tool results it is mid-turn.
    if (this.turn !== null && this.turnHasModel && !this.lastHadCalls) this.closeTurn()
    if (this.step !== null) this.closeStep()
    this.at(item.time)
    appendCompaction(this, item)
  }

  private openNewTurn(): void {
    const turn = this.nextTurn++
    this.turn = turn
    this.nextStep = 1
    this.turnHasModel = false
    this.lastStop = undefined
    this.unansweredInTurn = false
    this.lastHadCalls = false
    this.push('turn/start', { turn })
  }

  /** Synthetic results for the step's unanswered calls, then `step/end`. */
  private closeStep(): void {
    const turn = this.turn!
    const step = this.step!
    for (const [id, { callSeq }] of this.pending) {
      const callId = CallId(id)
      this.push('tool/result', {
        turn, step,
        message: {
          id: MessageId(`missing-tool-result-${id}-${this.events.length}`), role: 'user', source: { kind: 'tool', callId },
          content: [{ type: 'tool-result', toolCallId: callId, isError: true, content: [{ type: 'text', text: missingResultText(this.source.toolName) }] }],
        },
        error: { name: 'ToolOutcomeUnknownError', code: TOOL_OUTCOME_UNKNOWN },
      }, { surfaceOp: 'append', sources: [callSeq] })
      this.unansweredInTurn = true
    }
    this.pending.clear()
    this.push('step/end', { turn, step })
    this.step = null
  }

  private closeTurn(reason?: TurnEndReason): void {
    if (this.step !== null) this.closeStep()
    this.push('turn/end', { turn: this.turn!, reason: reason ?? this.reasonOf() })
    this.turn = null
  }

  /** How the source's turn ended: its last response's stop, else interrupted when a call went unanswered. */
  private reasonOf(): TurnEndReason {
    switch (this.lastStop) {
      case 'max-tokens': return { kind: 'max-tokens' }
      case 'aborted': return { kind: 'aborted', reason: { kind: 'user' } }
      case 'error':
        return { kind: 'error', error: { message: this.lastError ?? 'the source recorded an error for this response', code: 'IMPORTED_ERROR' } }
      case 'stop':
      case undefined:
        return this.unansweredInTurn ? { kind: 'interrupted' } : { kind: 'completed' }
      default: return assertNever(this.lastStop)
    }
  }
}
