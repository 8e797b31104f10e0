/**
 * `@logbook/compaction-basic` — summarising compaction (spec 03 §2.7–§2.11): automatic compaction on pressure,
 * overflow recovery, manual and explicit compaction, and the tool-result pruner, provided as `ctx.compaction`.
 */

import type {} from '@logbook/agent-loop'
import type {} from '@logbook/compaction'
import { BasicCompaction } from './service.ts'

/** The plugin: the `Service` registered as `ctx.compaction`. */
export default BasicCompaction

export { BasicCompaction }
export { Config } from './config.ts'
export type { CompactionBasicConfig, CompactionBasicConfigInput, ContextWindowEntry, PruneConfig } from './config.ts'
export { CompactionConfigError, type CompactionConfigErrorCode } from './errors.ts'
export { createSummarizer, INSTRUCTION_VERSION, SUMMARY_INSTRUCTION } from './summarizer.ts'
export type { SummarizerOptions, SummaryTarget } from './summarizer.ts'
export type { PrunedResult, PruneReport } from './prune.ts'
