/**
 * The region transaction (spec 03 §2.6), shared by every compaction path: validate, lock, summarise, check,
 * commit one surface replace, close the bracket exactly once, optionally flush.
 */

import { randomUUID } from 'node:crypto'
import type { TokenEstimator } from '@logbook/llm'
import { deriveEventMessage, type Message, messageOf, type Session, type SessionEvent, type ToolSchema } from '@logbook/session'
import { balanceView } from './balance.ts'
import { summaryNodeMessage } from './summary-node.ts'
import { entryState } from './entry-state.ts'
import { CompactionError, isCompactionError, noOpenTurnError } from './errors.ts'
import { logOf } from './log.ts'
import { nodePrice, pricesFor } from './measure.ts'
import type { CompactionResult, CompactionSummaryData, RegionOptions, SummarizeOutput } from './types.ts'

/** What the transaction needs from its host: the estimator in force and the session store's flush. */
export interface RegionDeps {
  readonly estimator: TokenEstimator
  readonly flush: (session: Session) => Promise<unknown>
}

/** The `CANCELLED` error of an aborted signal; `cause` is the abort reason. */
export function cancelledError(signal: AbortSignal | undefined): CompactionError {
  return new CompactionError('CANCELLED', 'compaction was cancelled', { cause: signal?.reason })
}

/** Everything the transaction remembers between locking and committing (§2.6 item 4). */
interface Prepared {
  readonly nodes: readonly number[]
  readonly first: number
  readonly seqs: readonly number[]
  readonly generation: number
  readonly shadowedTokenCount: number
  readonly messages: readonly Message[]
  readonly system: string | undefined
  readonly tools: readonly ToolSchema[] | undefined
}

/** The derived messages of the span nodes `seqs`, in order, skipping nodes that derive none. */
function spanMessages(events: readonly (SessionEvent | undefined)[], seqs: readonly number[]): Message[] {
  const messages: Message[] = []
  for (const seq of seqs) {
    const message = deriveEventMessage(events[seq]!)
    if (message !== null) messages.push(message)
  }
  return messages
}

/** Items 1 and 4: validate the span read-only and gather what the summariser needs. */
function prepare(session: Session, options: RegionOptions, estimator: TokenEstimator): Prepared {
  const { span, signal } = options
  if (signal?.aborted) throw cancelledError(signal)
  const view = balanceView(session)
  const first = view.indexBySeq.get(span.start)
  if (first === undefined) throw new CompactionError('INVALID_SPAN', `span start seq ${span.start} is not on the surface`)
  const last = view.indexBySeq.get(span.end)
  if (last === undefined) throw new CompactionError('INVALID_SPAN', `span end seq ${span.end} is not on the surface`)
  if (first > last) {
    throw new CompactionError('INVALID_SPAN',
      `span start seq ${span.start} (position ${first}) is after end seq ${span.end} (position ${last})`)
  }
  const events = logOf(session)
  const headEvent: SessionEvent | undefined = events[view.nodes[0]!]
  if (first === 0 && headEvent?.type === 'system/message') {
    throw new CompactionError('INVALID_SPAN', 'span covers the protected system message')
  }
  if (view.counters[first] !== 0) {
    throw new CompactionError('INVALID_SPAN', `span edge at seq ${span.start} is not a balanced boundary`)
  }
  if (view.counters[last + 1] !== 0) {
    throw new CompactionError('INVALID_SPAN', `span edge at seq ${span.end} is not a balanced boundary`)
  }
  const seqs = view.nodes.slice(first, last + 1)
  const prices = pricesFor(session, estimator)
  let shadowedTokenCount = 0
  for (const seq of seqs) shadowedTokenCount += nodePrice(prices, estimator, events, seq)
  // The session's derived-message cache aligns with the nodes when no node derives null: slice it then.
  const derived = session.deriveMessages()
  const messages = derived.length === view.nodes.length ? derived.slice(first, last + 1) : spanMessages(events, seqs)
  const system = options.system
    ?? (headEvent?.type === 'system/message' ? headEvent.data.content.map(part => part.text).join('\n') : undefined)
  const tools = options.tools ?? session.requestHeader()?.tools
  return { nodes: view.nodes, first, seqs, generation: session.surface.replaceGeneration, shadowedTokenCount, messages, system, tools }
}

/** Item 2: the lock first, then the owner; returns the turn to record. */
function ownerTurn(session: Session, options: RegionOptions): number | null {
  const state = entryState(session)
  if (state.lock !== null) {
    throw new CompactionError('BUSY', `compaction already in progress (compaction/start at seq ${state.lock.seq})`)
  }
  if (options.owner === 'turn') {
    if (state.openTurn === null) throw noOpenTurnError()
    return state.openTurn
  }
  if (state.openTurn !== null) throw new CompactionError('BUSY', 'session has an open turn')
  return null
}

async function summarise(options: RegionOptions, prepared: Prepared): Promise<SummarizeOutput> {
  const { signal } = options
  try {
    return await options.summarize({
      messages: prepared.messages,
      ...(prepared.system === undefined ? {} : { system: prepared.system }),
      ...(prepared.tools === undefined ? {} : { tools: prepared.tools }),
      ...(signal === undefined ? {} : { signal }),
    })
  } catch (error) {
    if (isCompactionError(error)) throw error
    if (signal?.aborted) throw cancelledError(signal)
    throw new CompactionError('SUMMARY_FAILED', `summarizer failed: ${messageOf(error)}`, { cause: error })
  }
}

/** Item 7: the span must still sit where it was, under the same replace generation. */
function assertStable(session: Session, prepared: Prepared): void {
  const surface = session.surface
  let same = surface.replaceGeneration === prepared.generation
  // The frozen node list keeps its identity while the surface is unchanged; otherwise compare the span's positions.
  for (let i = 0; same && surface.nodes !== prepared.nodes && i < prepared.seqs.length; i++) {
    same = surface.nodes[prepared.first + i] === prepared.seqs[i]
  }
  if (!same) throw new CompactionError('CHANGED', 'session surface changed during compaction')
}

function closeFailed(startSeq: number, error: unknown): CompactionError {
  return new CompactionError('COMPACTION_FAILED',
    `compaction/start at seq ${startSeq} could not be closed: ${messageOf(error)}`, { cause: error })
}

/**
 * Run one compaction region: nothing is written unless the span, the lock and the owner check out; then
 * `compaction/start` is appended before anything yields, the summary is requested, and either `compaction/summary`,
 * the checkpoint replace and `compaction/end` are appended back to back, or exactly one `compaction/end` with the
 * error is attempted. With `flushAfter` the session is flushed after closing.
 * @throws CompactionError `CANCELLED`, `INVALID_SPAN`, `CORRUPT_SURFACE`, `BUSY`, `NO_OPEN_TURN` (nothing written);
 * `SUMMARY_FAILED`, `CHANGED`, `COMMIT_FAILED` (bracket closed with the error); `COMPACTION_FAILED` (the close
 * failed; the start stays a live lock); `PERSISTENCE_FAILED` (flush after a clean close).
 */
export async function runRegion(deps: RegionDeps, options: RegionOptions): Promise<CompactionResult> {
  const { session, span, signal } = options
  const prepared = prepare(session, options, deps.estimator)
  const turn = ownerTurn(session, options)
  const compactionId = randomUUID()
  let startSeq: number
  try {
    startSeq = session.append('compaction/start', { compactionId, turn, trigger: options.trigger }).seq
  } catch (error) {
    throw new CompactionError('COMMIT_FAILED', `compaction/start could not be appended: ${messageOf(error)}`, { cause: error })
  }

  let result: CompactionResult | undefined
  let failure: CompactionError | undefined
  let closing = false
  try {
    const output = await summarise(options, prepared)
    if (typeof output?.summary !== 'string') throw new CompactionError('SUMMARY_FAILED', 'summarizer returned no summary text')
    const checkpoint = summaryNodeMessage(compactionId, output.summary)
    const summaryTokenCount = deps.estimator.message(checkpoint)
    if (summaryTokenCount >= prepared.shadowedTokenCount) {
      throw new CompactionError('SUMMARY_FAILED', 'summary is not smaller than the span it replaces '
        + `(${summaryTokenCount} ≥ ${prepared.shadowedTokenCount} tokens)`)
    }
    if (signal?.aborted) throw cancelledError(signal)
    assertStable(session, prepared)
    const data: CompactionSummaryData = {
      compactionId, summary: output.summary, shadowedRange: { start: span.start, end: span.end },
      shadowedSeqs: prepared.seqs, shadowedTokenCount: prepared.shadowedTokenCount, summaryTokenCount,
      provider: output.provider, model: output.model, maxTokens: output.maxTokens,
      instructionVersion: output.instructionVersion, ...(output.usage === undefined ? {} : { usage: output.usage }),
    }
    let summarySeq: number
    let checkpointSeq: number
    try {
      summarySeq = session.append('compaction/summary', data).seq
      checkpointSeq = session.append('user/message', checkpoint, {
        surfaceOp: { op: 'replace', start: span.start, end: span.end },
        sourceEventSeqs: [startSeq, summarySeq, ...prepared.seqs],
      }).seq
    } catch (error) {
      throw new CompactionError('COMMIT_FAILED', `compaction could not be committed: ${messageOf(error)}`, { cause: error })
    }
    closing = true
    let endSeq: number
    try {
      endSeq = session.append('compaction/end', { compactionId, turn }).seq
    } catch (error) {
      throw closeFailed(startSeq, error)
    }
    result = {
      compactionId, startSeq, summarySeq, checkpointSeq, endSeq, shadowedRange: data.shadowedRange,
      shadowedSeqs: prepared.seqs, shadowedTokenCount: prepared.shadowedTokenCount, summaryTokenCount,
      summary: output.summary,
    }
  } catch (error) {
    failure = isCompactionError(error) ? error
      : new CompactionError('COMMIT_FAILED', `compaction could not be committed: ${messageOf(error)}`, { cause: error })
    if (!closing) {
      try {
        session.append('compaction/end', { compactionId, turn, error: { code: failure.code, message: failure.message } })
      } catch (closeError) {
        failure = closeFailed(startSeq, closeError)
      }
    }
  }

  if (options.flushAfter === true) {
    try {
      await deps.flush(session)
    } catch (error) {
      // A failed transaction keeps its own error; the flush failure only matters after a clean close.
      failure ??= new CompactionError('PERSISTENCE_FAILED',
        `session could not be flushed after compaction: ${messageOf(error)}`, { cause: error })
    }
  }
  if (failure !== undefined) throw failure
  return result!
}
