/**
 * What the trigger paths (pressure, overflow, manual, explicit) need from the service, as one plain object: Cordis
 * hands callers a tracing proxy of a service, so the listeners close over this instead of the service itself.
 */

import type { CompactionService, Summarize } from '@logbook/compaction'
import type { Session } from '@logbook/session'
import type { CompactionBasicConfig } from './config.ts'
import type { PruneReport } from './prune.ts'

/** The shared state and helpers of one `compaction-basic` instance. */
export interface CompactionHost {
  readonly config: CompactionBasicConfig
  readonly service: CompactionService
  /** The context window of a provider/model pair: the configured entry, else the adapter's `modelInfo`. */
  capacity(provider: string, model: string): number | undefined
  warn(text: string): void
  /** Warn `text` only the first time `key` is seen by this instance. */
  warnOnce(key: string, text: string): void
  /** `pruneSession` with the configured limits and the estimator in force. */
  prune(session: Session, includeUnread: boolean): PruneReport
  /** The summariser for `session`: the configured summary model, else `fallback` (the request's provider/model). */
  summarizer(session: Session, fallback: { readonly provider?: string; readonly model?: string }): Summarize
}
