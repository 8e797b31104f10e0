/**
 * Display items: what the viewer shows for events. `messageItem` turns one message event into an item (the surface
 * view and a compaction's originals use it alone); `segmentItems` folds a whole turn segment for the log view — tool
 * calls joined to their results, streamed chunks folded into the reply they became (or shown as a partial reply
 * while a step runs or after a failed attempt), compaction brackets, prunes, fork and resume markers, the turn end.
 */

import { SUMMARY_NODE_ID_PREFIX, isCompactionCheckpoint } from '@logbook/compaction'
import { isAppendSurfaceEvent, type SessionEvent, type TurnEndReason } from '@logbook/session'
import { resultParts, textParts } from './content.ts'
import type { CompactionItem, ForkCuts, LogItem, PartialItem, SegmentItems, SyntheticCause, ToolOutcome, ToolRun } from './item-types.ts'
import { addUsage, emptyUsage, type SessionView } from './session-view.ts'

const SYNTHETIC_PREFIXES: readonly [string, SyntheticCause][] = [['interrupted-tool-result-', 'interrupted'], ['forked-tool-result-', 'forked']]

function syntheticCause(messageId: string): SyntheticCause | undefined {
  return SYNTHETIC_PREFIXES.find(([prefix]) => messageId.startsWith(prefix))?.[1]
}

function shadowOf(view: SessionView, seq: number): { shadowedBy?: number } {
  const by = view.shadowedBy.get(seq)
  return by === undefined ? {} : { shadowedBy: by }
}

/** The bracket of compaction `id` as the view holds it now (a bracket still running has no end). */
export function compactionInfo(view: SessionView, id: string): CompactionItem | undefined {
  const seqs = view.compactions.get(id)
  if (seqs?.startSeq === undefined) return undefined
  const start = view.events[seqs.startSeq] as SessionEvent<'compaction/start'>
  const item: CompactionItem = {
    kind: 'compaction', seq: seqs.startSeq, compactionId: id, trigger: start.data.trigger, shadowedSeqs: [],
  }
  if (seqs.summarySeq !== undefined) {
    const { data } = view.events[seqs.summarySeq] as SessionEvent<'compaction/summary'>
    Object.assign(item, {
      summary: data.summary, summarySeq: seqs.summarySeq, shadowedSeqs: data.shadowedSeqs,
      tokensBefore: data.shadowedTokenCount, tokensAfter: data.summaryTokenCount, ...(data.usage === undefined ? {} : { usage: data.usage }),
    })
  }
  if (seqs.checkpointSeq !== undefined) item.checkpointSeq = seqs.checkpointSeq
  if (seqs.endSeq !== undefined) {
    item.endSeq = seqs.endSeq
    const { error } = (view.events[seqs.endSeq] as SessionEvent<'compaction/end'>).data
    if (error !== undefined) item.error = { code: error.code, message: error.message }
  }
  return item
}

/** The tool result of `event` as an outcome. */
function outcomeOf(view: SessionView, event: SessionEvent<'tool/result'>): ToolOutcome {
  const { message, error } = event.data
  const block = message.content[0]
  const synthetic = syntheticCause(message.id)
  return {
    seq: event.seq, parts: resultParts(block.content), isError: block.isError === true, ...shadowOf(view, event.seq),
    ...(error === undefined ? {} : { errorCode: error.code }), ...(synthetic === undefined ? {} : { synthetic }),
  }
}

/**
 * The item of one message event on its own (no joined results, no folded chunks): `undefined` for events that are
 * not messages. A compaction checkpoint becomes its bracket; a pruned tool result a `tool` item that names the result
 * it rewrote.
 */
export function messageItem(view: SessionView, event: SessionEvent): LogItem | undefined {
  const { seq } = event
  switch (event.type) {
    case 'system/message':
      return { kind: 'system', seq, text: textParts(event.data.content).text, rewrite: !isAppendSurfaceEvent(event), ...shadowOf(view, seq) }
    case 'user/message': {
      if (isCompactionCheckpoint(event)) return compactionInfo(view, event.data.id.slice(SUMMARY_NODE_ID_PREFIX.length))
      const text = textParts(event.data.content).text
      if (!isAppendSurfaceEvent(event)) return { kind: 'replace', seq, type: event.type, text, shadowedSeqs: replacedSeqs(event) }
      const source = event.data.source as { kind: string; plugin?: string }
      const images = event.data.content.flatMap(block => (block.type === 'image' ? [block.image] : []))
      return { kind: 'user', seq, text, images, source: source.kind === 'plugin' ? source.plugin ?? 'plugin' : source.kind, ...shadowOf(view, seq) }
    }
    case 'assistant/message': {
      const { message, usage, step, interrupted, usageMissing } = event.data
      const parts = textParts(message.content)
      if (!isAppendSurfaceEvent(event)) return { kind: 'replace', seq, type: event.type, text: parts.text, shadowedSeqs: replacedSeqs(event) }
      const tools: ToolRun[] = message.content.flatMap(block => (block.type === 'tool-call' ? [{ callId: block.id, name: block.name, arguments: block.arguments }] : []))
      return {
        kind: 'assistant', seq, step, text: parts.text, reasoning: parts.reasoning, refusals: parts.refusals, tools,
        interrupted: interrupted === true, usageMissing: usageMissing === true, model: `${message.source.provider}/${message.source.model}`, chunks: 0,
        ...shadowOf(view, seq), ...(usage === undefined ? {} : { usage }),
      }
    }
    case 'tool/result': {
      const callId = event.data.message.source.callId
      const op = event.surfaceOp
      const run: ToolRun = { callId, name: view.callNames.get(callId) ?? '(unknown tool)', arguments: '', result: outcomeOf(view, event) }
      return { kind: 'tool', seq, run, ...(typeof op === 'object' ? { rewrites: op.start } : {}) }
    }
    default:
      return undefined
  }
}

function replacedSeqs(event: SessionEvent): number[] {
  return [...((event as { sourceEventSeqs?: readonly number[] }).sourceEventSeqs ?? [])]
}

interface PendingChunks {
  seq: number
  step: number
  text: string
  reasoning: string
  count: number
  finished: boolean
  error?: { code: string; message: string }
}

/** Folds one chunk into the pending run; returns the run a new attempt or step leaves behind. */
function takeChunk(pending: PendingChunks | undefined, event: SessionEvent<'assistant/chunk'>): { next: PendingChunks; done?: PendingChunks } {
  const { chunk, step } = event.data
  const done = pending !== undefined && (pending.finished || pending.step !== step) ? pending : undefined
  const next = done === undefined && pending !== undefined ? pending : { seq: event.seq, step, text: '', reasoning: '', count: 0, finished: false }
  next.count++
  if (chunk.type === 'text-delta') next.text += chunk.text
  else if (chunk.type === 'reasoning-delta') next.reasoning += chunk.text
  else if (chunk.type === 'finish') {
    next.finished = true
    if (chunk.error !== undefined) next.error = { code: chunk.error.code, message: chunk.error.message }
  }
  return done === undefined ? { next } : { next, done }
}

function partialOf(run: PendingChunks, running: boolean): PartialItem {
  const { seq, step, text, reasoning, count, error } = run
  return { kind: 'partial', seq, step, text, reasoning, chunks: count, running, ...(error === undefined ? {} : { error }) }
}

/** The log-view items of segment `index` of `view`, with the children in `forks` marked after their cut seqs. */
export function segmentItems(view: SessionView, index: number, forks: ForkCuts = new Map()): SegmentItems {
  const { start, end } = view.rangeOf(index)
  const items: LogItem[] = []
  const runs = new Map<string, ToolRun>()
  const usage = emptyUsage()
  let pending: PendingChunks | undefined
  let reason: TurnEndReason | undefined
  const flush = (running: boolean): void => {
    if (pending !== undefined) items.push(partialOf(pending, running))
    pending = undefined
  }
  for (let seq = start; seq < end; seq++) {
    const event = view.events[seq]!
    switch (event.type) {
      case 'assistant/chunk': {
        const { next, done } = takeChunk(pending, event)
        if (done !== undefined) items.push(partialOf(done, false))
        pending = next
        break
      }
      case 'assistant/message': {
        const item = messageItem(view, event)!
        if (item.kind === 'assistant') {
          const chunks = pending?.step === event.data.step ? pending.count : 0
          if (chunks > 0) pending = undefined
          for (const run of item.tools) runs.set(run.callId, run)
          addUsage(usage, item.usage)
          items.push({ ...item, chunks })
        } else items.push(item)
        break
      }
      case 'tool/call': {
        const run = runs.get(event.data.callId)
        if (run !== undefined) run.callSeq = seq
        else {
          const orphan: ToolRun = { callId: event.data.callId, name: event.data.name, arguments: event.data.arguments, callSeq: seq }
          runs.set(orphan.callId, orphan)
          items.push({ kind: 'tool', seq, run: orphan })
        }
        break
      }
      case 'tool/result': {
        // A rewrite (a pruned result) is the prune item's business; the original stays shown where it was.
        if (!isAppendSurfaceEvent(event)) break
        const run = runs.get(event.data.message.source.callId)
        if (run !== undefined && run.result === undefined) run.result = outcomeOf(view, event)
        else items.push(messageItem(view, event)!)
        break
      }
      case 'system/message':
      case 'user/message': {
        // A checkpoint is shown by its bracket, which starts before it.
        if (isCompactionCheckpoint(event)) break
        items.push(messageItem(view, event)!)
        break
      }
      case 'compaction/start': {
        const item = compactionInfo(view, event.data.compactionId)
        if (item !== undefined) items.push(item)
        break
      }
      case 'compaction/prune':
        items.push({
          kind: 'prune', seq, targetSeq: event.data.shadowedRange.start, charsBefore: event.data.charsBefore,
          charsAfter: event.data.charsAfter, tokensBefore: event.data.shadowedTokenCount,
        })
        break
      case 'session/end-seed': {
        const parent = view.header.parentSession
        if (event.data.inherited === true) items.push({ kind: 'fork-seed', seq, afterSeq: seq - 1, ...(parent === undefined ? {} : { parent }) })
        else if (seq > 0) items.push({ kind: 'resumed', seq })
        break
      }
      case 'turn/end':
        flush(false)
        reason = event.data.reason
        items.push({ kind: 'turn-end', seq, reason })
        break
      case 'step/end':
        flush(false)
        break
      case 'todo/write':
        items.push({ kind: 'todos', seq, todos: event.data.todos })
        break
      case 'request/context':
        items.push({ kind: 'model', seq, provider: event.data.provider, model: event.data.model })
        break
      case 'turn/start':
      case 'step/start':
      case 'request/header':
      case 'compaction/end':
      case 'compaction/summary':
        break
      default:
        if ((event.type as string) === 'session/title') items.push({ kind: 'title', seq, title: String((event.data as { title?: unknown }).title ?? '') })
        else items.push({ kind: 'other', seq, type: event.type })
    }
    const children = forks.get(seq)
    if (children !== undefined) items.push({ kind: 'fork-cut', seq, children })
  }
  const turn = view.segments[index]!.turn
  const running = turn > 0 && reason === undefined
  flush(running)
  return { turn, items, running, usage, start, end, ...(reason === undefined ? {} : { reason }) }
}
