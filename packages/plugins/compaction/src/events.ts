/**
 * The compaction vocabulary (spec 03 §2.1): four log-only, non-ignorable plugin event types, declared on
 * `SessionEventMap` and registered with the store's event-type registry by the seam's plugin and its service.
 */

import type {
  CompactionEndData, CompactionPruneData, CompactionStartData, CompactionSummaryData,
} from './types.ts'

declare module '@logbook/session' {
  interface SessionEventMap {
    'compaction/start': CompactionStartData
    'compaction/summary': CompactionSummaryData
    'compaction/end': CompactionEndData
    'compaction/prune': CompactionPruneData
  }
}

/** The four compaction event types, in §2.1 order. */
export const COMPACTION_EVENT_TYPES = Object.freeze([
  'compaction/start', 'compaction/summary', 'compaction/end', 'compaction/prune',
] as const)

/** One of the compaction event types. */
export type CompactionEventType = (typeof COMPACTION_EVENT_TYPES)[number]
