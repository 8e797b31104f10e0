/**
 * Types of the compaction seam (spec 03 §2): event payloads, entry state, measurement, spans, the region
 * transaction's input and result, and the summariser contract. This file holds types only.
 */

import type { Message, Session, TokenUsage, ToolSchema } from '@logbook/session'
import type { CompactionErrorCode } from './errors.ts'

/** What started a compaction (§2.1). */
export type CompactionTrigger = 'pressure' | 'overflow' | 'manual' | 'explicit'

/** First and last replaced node, by surface order (§2.1). */
export interface ShadowedRange {
  readonly start: number
  readonly end: number
}

/** `compaction/start`: the lock (§2.1, §2.2). `turn` is the owner turn, `null` for manual compaction. */
export interface CompactionStartData {
  readonly compactionId: string
  readonly turn: number | null
  readonly trigger: CompactionTrigger
}

/** `compaction/summary`: the unframed model text and what it replaces (§2.1). */
export interface CompactionSummaryData {
  readonly compactionId: string
  readonly summary: string
  readonly shadowedRange: ShadowedRange
  readonly shadowedSeqs: readonly number[]
  readonly shadowedTokenCount: number
  readonly summaryTokenCount: number
  readonly provider: string
  readonly model: string
  readonly maxTokens: number
  readonly instructionVersion: number
  readonly usage?: TokenUsage
}

/** The failure a bracket closed with (§2.6 item 9). */
export interface CompactionEndError {
  readonly code: CompactionErrorCode
  readonly message: string
}

/** `compaction/end`: closes the bracket; with `error` the bracket failed and the surface is unchanged (§2.1). */
export interface CompactionEndData {
  readonly compactionId: string
  readonly turn: number | null
  readonly error?: CompactionEndError
}

/** `compaction/prune`: logged right before the content-only `tool/result` rewrite it describes (§2.10). */
export interface CompactionPruneData {
  readonly shadowedRange: ShadowedRange
  readonly shadowedSeqs: readonly number[]
  readonly shadowedTokenCount: number
  readonly charsBefore: number
  readonly charsAfter: number
}

/** The unmatched `compaction/start` found by `entryState`. */
export interface UnmatchedStart {
  readonly seq: number
  readonly compactionId: string
  readonly turn: number | null
}

/**
 * Where a session stands for compaction (§2.2). `unmatchedStart` is the newest start without an end; it is the
 * live `lock` unless a `session/end-seed` came after it (an ended lifecycle), in which case `lock` is `null`.
 */
export interface EntryState {
  readonly endSeedSeq: number | null
  readonly unmatchedStart: UnmatchedStart | null
  readonly lock: UnmatchedStart | null
  readonly openTurn: number | null
}

/** One surface node and its price (§2.4). */
export interface NodeMeasure {
  readonly seq: number
  readonly tokens: number
}

/** The price of a session's next request (§2.4). */
export interface Measurement {
  readonly nodes: readonly NodeMeasure[]
  readonly surfaceTokens: number
  readonly headerTokens: number
  readonly totalTokens: number
}

/** A span of surface nodes named by the seqs at its two ends (positional, §2.5, 01 §4.4). */
export interface Span {
  readonly start: number
  readonly end: number
}

/** What a summariser is asked to condense (§2.6 item 5). */
export interface SummarizeInput {
  /** The span's derived messages, in surface order. */
  readonly messages: readonly Message[]
  /** The conversation's system prompt (surface node 0), when it has one. */
  readonly system?: string
  /** The conversation's tool schemas, when known. */
  readonly tools?: readonly ToolSchema[]
  readonly signal?: AbortSignal
}

/** What a summariser returns (§2.6 item 5, §2.9); recorded in `compaction/summary`. */
export interface SummarizeOutput {
  readonly summary: string
  readonly provider: string
  readonly model: string
  readonly maxTokens: number
  readonly instructionVersion: number
  readonly usage?: TokenUsage
}

/** A summariser: a `CompactionError` it throws passes through; anything else becomes `SUMMARY_FAILED`. */
export type Summarize = (input: SummarizeInput) => Promise<SummarizeOutput>

/**
 * Who owns a bracket (§2.2): `'turn'` requires an open turn and records its number (automatic and explicit
 * paths); `'none'` requires no open turn and records `null` (manual).
 */
export type RegionOwner = 'turn' | 'none'

/** Input of the region transaction (§2.6). */
export interface RegionOptions {
  readonly session: Session
  readonly span: Span
  readonly owner: RegionOwner
  readonly trigger: CompactionTrigger
  readonly summarize: Summarize
  readonly signal?: AbortSignal
  /** Await `ctx.sessions.flush(session)` after closing (manual compaction). */
  readonly flushAfter?: boolean
  /** The request's system prompt for the summariser; default: the text of a node-0 `system/message`. */
  readonly system?: string
  /** The request's tool schemas for the summariser; default: those of the newest `request/header`. */
  readonly tools?: readonly ToolSchema[]
}

/** The committed region (§2.6 item 11). */
export interface CompactionResult {
  readonly compactionId: string
  readonly startSeq: number
  readonly summarySeq: number
  readonly checkpointSeq: number
  readonly endSeq: number
  readonly shadowedRange: ShadowedRange
  readonly shadowedSeqs: readonly number[]
  readonly shadowedTokenCount: number
  readonly summaryTokenCount: number
  readonly summary: string
}

/** Options of `compactNow` (§2.8). */
export interface CompactNowOptions {
  readonly signal?: AbortSignal
}

/** Options of `compactRegion` (§2.8): the span's two ends, by seq. */
export interface CompactRegionOptions {
  readonly start: number
  readonly end: number
  readonly signal?: AbortSignal
}
