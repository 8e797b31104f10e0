/** The display items of the viewer (types only): what the log and surface views and the exports render. */

import type { ImageRef, TodoItem, TokenUsage, TurnEndReason } from '@logbook/session'
import type { ResultPart } from './content.ts'

/** Why a tool result was written by Logbook rather than by the tool: a resume or a fork closed the turn. */
export type SyntheticCause = 'interrupted' | 'forked'

/** A tool result as shown. */
export interface ToolOutcome {
  readonly seq: number
  readonly parts: readonly ResultPart[]
  readonly isError: boolean
  readonly errorCode?: string
  readonly synthetic?: SyntheticCause
  readonly shadowedBy?: number
}

/** One tool call: requested by a model reply, started (`tool/call`), answered (`tool/result`). */
export interface ToolRun {
  readonly callId: string
  readonly name: string
  readonly arguments: string
  callSeq?: number
  result?: ToolOutcome
}

/** A model reply: its text, reasoning (shown collapsed), refusals and tool calls. */
export interface AssistantItem {
  readonly kind: 'assistant'
  readonly seq: number
  readonly step: number
  readonly text: string
  readonly reasoning: readonly string[]
  readonly refusals: readonly string[]
  readonly tools: readonly ToolRun[]
  readonly interrupted: boolean
  readonly usage?: TokenUsage
  /** The stream completed without a usage report (session format 2's `usageMissing`). */
  readonly usageMissing: boolean
  readonly model: string
  /** Streamed chunks folded into this reply. */
  readonly chunks: number
  readonly shadowedBy?: number
}

/** Streamed chunks that became no reply: the step is still running, or the attempt failed. */
export interface PartialItem {
  readonly kind: 'partial'
  readonly seq: number
  readonly step: number
  readonly text: string
  readonly reasoning: string
  readonly chunks: number
  readonly running: boolean
  readonly error?: { readonly code: string; readonly message: string }
}

/** A compaction bracket: summary, what it replaced, tokens before and after, how it ended. */
export interface CompactionItem {
  readonly kind: 'compaction'
  readonly seq: number
  readonly compactionId: string
  readonly trigger: string
  summary?: string
  /** What the summarising request used. */
  usage?: TokenUsage
  summarySeq?: number
  checkpointSeq?: number
  shadowedSeqs: readonly number[]
  tokensBefore?: number
  tokensAfter?: number
  endSeq?: number
  error?: { readonly code: string; readonly message: string }
}

/** Every item kind. */
export type LogItem =
  | { readonly kind: 'system'; readonly seq: number; readonly text: string; readonly rewrite: boolean; readonly shadowedBy?: number }
  | { readonly kind: 'user'; readonly seq: number; readonly text: string; readonly images: readonly ImageRef[]; readonly source: string; readonly shadowedBy?: number }
  | AssistantItem
  | PartialItem
  /** A tool call or result shown on its own; `rewrites`: the seq of the result a pruned result replaced. */
  | { readonly kind: 'tool'; readonly seq: number; readonly run: ToolRun; readonly rewrites?: number }
  | CompactionItem
  | { readonly kind: 'prune'; readonly seq: number; readonly targetSeq: number; readonly charsBefore: number; readonly charsAfter: number; readonly tokensBefore: number }
  | { readonly kind: 'replace'; readonly seq: number; readonly type: string; readonly text: string; readonly shadowedSeqs: readonly number[] }
  | { readonly kind: 'fork-seed'; readonly seq: number; readonly parent?: string; readonly afterSeq: number }
  | { readonly kind: 'resumed'; readonly seq: number }
  | { readonly kind: 'fork-cut'; readonly seq: number; readonly children: readonly string[] }
  | { readonly kind: 'todos'; readonly seq: number; readonly todos: readonly TodoItem[] }
  | { readonly kind: 'title'; readonly seq: number; readonly title: string }
  | { readonly kind: 'model'; readonly seq: number; readonly provider: string; readonly model: string }
  | { readonly kind: 'other'; readonly seq: number; readonly type: string }
  | { readonly kind: 'turn-end'; readonly seq: number; readonly reason: TurnEndReason }

/** A segment folded for the log view. */
export interface SegmentItems {
  readonly turn: number
  readonly items: readonly LogItem[]
  /** The turn has no `turn/end` (it is being written, or its writer stopped); it is never closed here. */
  readonly running: boolean
  /** How the turn ended, when its `turn/end` is stored. */
  readonly reason?: TurnEndReason
  readonly usage: TokenUsage
  /** Seqs `[start, end)`. */
  readonly start: number
  readonly end: number
}

/** Where a session's children were cut: parent seq → child ids. */
export type ForkCuts = ReadonlyMap<number, readonly string[]>
