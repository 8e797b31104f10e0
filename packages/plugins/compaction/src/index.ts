/**
 * `@logbook/compaction` — the compaction seam (spec 03 §2): the event vocabulary, entry state and lock, tool-pairing
 * balance, token measurement, span selection, the region transaction and the abstract `CompactionService`
 * (ctx key `compaction`). As a plugin it only registers the compaction event types, so that logs holding them can
 * be read and written without running compaction.
 */

import type { Context } from '@deepseek-ai/cordis'
import type {} from '@logbook/session'
import { CompactionService, registerCompactionEventTypes } from './service.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    compaction: CompactionService
  }
}

/** The plugin's name. */
export const name = 'compaction'
/** The plugin registers event types on the session store. */
export const inject = ['sessions']

/** Register the four compaction event types with `ctx.sessions` for as long as the plugin is loaded. */
export function apply(ctx: Context): void {
  registerCompactionEventTypes(ctx)
}

export { CompactionService }
export type { CompactionEventType } from './events.ts'
export { CHECKPOINT_PREAMBLE, SUMMARY_NODE_ID_PREFIX, isCompactionCheckpoint, summaryNodeMessage } from './summary-node.ts'
export { entryState } from './entry-state.ts'
export { measureSession } from './measure.ts'
export { logOf } from './log.ts'
export { cancelledError } from './region.ts'
export {
  COMPACTION_ERROR_CODES, CompactionError, isCompactionError, ManualCompactionError, noOpenTurnError,
  type CompactionErrorCode, type CompactionErrorOptions, type ManualCompactionErrorCode,
} from './errors.ts'
export type * from './types.ts'
