/**
 * `BasicCompaction` (ctx key `compaction`): the seam's `CompactionService` with the summariser, the pressure and
 * overflow listeners (with `auto`), manual and explicit compaction, and the tool-result pruner.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { AgentHandle } from '@logbook/agent-loop'
import { CompactionService, type CompactionResult, type CompactNowOptions, type CompactRegionOptions } from '@logbook/compaction'
import type { Session } from '@logbook/session'
import { Config, resolveConfig, type CompactionBasicConfig, type CompactionBasicConfigInput } from './config.ts'
import type { CompactionHost } from './host.ts'
import { compactNow, compactRegion } from './manual.ts'
import { onRequestError, OverflowCounter } from './overflow.ts'
import { onPreStep } from './pressure.ts'
import { pruneSession, type PruneReport } from './prune.ts'
import { createSummarizer } from './summarizer.ts'

/**
 * Summarising compaction. With `auto` it listens to `agent/pre-step` (pressure) and `agent/request-error`
 * (overflow); `compactNow`, `compactRegion` and `pruneSession` are always available.
 */
export class BasicCompaction extends CompactionService {
  static override inject = ['sessions', 'llm']
  static Config = Config

  /** The resolved, frozen configuration. */
  readonly config: CompactionBasicConfig
  private readonly host: CompactionHost

  constructor(ctx: Context, config?: CompactionBasicConfigInput) {
    super(ctx)
    const resolved = resolveConfig(config)
    this.config = resolved
    const service = this as CompactionService
    const logger = ctx.logger('compaction')
    const warned = new Set<string>()
    const host: CompactionHost = {
      config: resolved,
      service,
      capacity: (provider, model) => resolved.contextWindows
        .find(entry => entry.provider === provider && entry.model === model)?.contextWindow
        ?? ctx.llm.modelInfo(provider, model)?.contextWindow,
      warn: text => logger.warn('%s', text),
      warnOnce: (key, text) => {
        if (warned.has(key)) return
        warned.add(key)
        logger.warn('%s', text)
      },
      prune: (session, includeUnread) => pruneSession(session, {
        includeUnread, limits: resolved.prune, estimator: service.estimator(),
      }),
      summarizer: (session, fallback) => createSummarizer({
        llm: ctx.llm,
        target: resolved.summaryProvider !== undefined
          ? { provider: resolved.summaryProvider, model: resolved.summaryModel }
          : { provider: fallback.provider, model: fallback.model },
        maxTokens: resolved.maxTokens,
        sessionId: session.id,
      }),
    }
    this.host = host
    if (resolved.auto) {
      const counter = new OverflowCounter()
      ctx.on('session/event', (session, event) => counter.observe(session, event))
      ctx.on('agent/pre-step', (payload, next) => onPreStep(host, payload, next))
      ctx.on('agent/request-error', (payload, next) => onRequestError(host, counter, payload, next))
    }
  }

  /** §2.8 manual compaction. @throws ManualCompactionError */
  compactNow(agent: AgentHandle, options?: CompactNowOptions): Promise<CompactionResult | null> {
    return compactNow(this.host, agent, options)
  }

  /** §2.8 explicit compaction. @throws CompactionError */
  compactRegion(agent: AgentHandle, options: CompactRegionOptions): Promise<CompactionResult> {
    return compactRegion(this.host, agent, options)
  }

  /**
   * §2.10 prune oversized `tool/result` nodes of `session` (unread ones only with `includeUnread`).
   * @throws CompactionError `NO_OPEN_TURN` outside an open turn.
   */
  pruneSession(session: Session, options: { readonly includeUnread?: boolean } = {}): PruneReport {
    return this.host.prune(session, options.includeUnread === true)
  }
}
