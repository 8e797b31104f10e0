/**
 * A running application the commands work on: the embedded default app or a booted `cordis.yml` (spec 03 §6.1,
 * §7). Teardown is ordered: agents first (turns closed, sessions flushed and detached), then plugins in reverse
 * load order, one at a time, so persistence outlives everything that writes through it.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { AgentsService } from '@logbook/agent-loop'
import type { CompactionService } from '@logbook/compaction'
import type { SessionStore } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import type { SessionProjections } from '@logbook/session-projection'
import type { SessionSearch } from '@logbook/session-search'
import { CliError } from '../errors.ts'
import type { StderrLogExporter } from '../log-exporter.ts'

/** The application a command runs against. */
export interface App {
  /** The root context. */
  readonly ctx: Context
  /** `ctx.sessions`. */
  readonly sessions: SessionStore
  /** `ctx.sessionPersistence`. @throws CliError `NOT_CONFIGURED` when no backend is loaded. */
  persistence(): SessionPersistence
  /** `ctx.agents`. @throws CliError `NOT_CONFIGURED` */
  agents(): AgentsService
  /** `ctx.compaction`. @throws CliError `NOT_CONFIGURED` */
  compaction(): CompactionService
  /** `ctx.sessionProjections`, when loaded. */
  projections(): SessionProjections | undefined
  /** The stderr log exporter (hold records while a plugin starts, so a failure is reported once). */
  readonly log: StderrLogExporter
  /**
   * `ctx.sessionSearch`, loading `@logbook/session-search` (default config) on the app when it does not provide it.
   * @throws CliError `NOT_CONFIGURED` without persistence; what the plugin's start throws (`INDEX_PATH_REQUIRED` for a
   * store without a local location).
   */
  search(): Promise<SessionSearch>
  /** Dispose agents, then the plugins in reverse order; idempotent. */
  dispose(): Promise<void>
}

/** Something to dispose in order. */
export interface Disposable {
  dispose(): Promise<void> | void
}

function required<T>(ctx: Context, key: string, what: string): T {
  const value = ctx.get(key) as T | undefined
  if (value === undefined) throw new CliError('NOT_CONFIGURED', `${what} is not configured (no plugin provides ctx.${key})`)
  return value
}

/**
 * An `App` over `ctx`; `plugins` are disposed in reverse order after every agent, then the log exporter. A plugin
 * loaded later (`search()`) is appended to `plugins`, so it is disposed first.
 */
export function createApp(ctx: Context, plugins: Disposable[], exporter: StderrLogExporter): App {
  let disposing: Promise<void> | undefined
  let search: Promise<SessionSearch> | undefined
  const loadSearch = async (): Promise<SessionSearch> => {
    const loaded = ctx.get('sessionSearch') as SessionSearch | undefined
    if (loaded !== undefined) return loaded
    // The plugin injects persistence: without it the plugin never starts, so name what is missing.
    required<SessionPersistence>(ctx, 'sessionPersistence', 'session persistence')
    const { default: plugin } = await import('@logbook/session-search')
    const fiber = ctx.plugin(plugin)
    plugins.push({ dispose: () => fiber.dispose() })
    await fiber
    return required<SessionSearch>(ctx, 'sessionSearch', 'session search')
  }
  const dispose = async (): Promise<void> => {
    const agents = ctx.get('agents') as AgentsService | undefined
    const results = await Promise.allSettled((agents?.list() ?? []).map(agent => agent.dispose()))
    for (const result of results) {
      if (result.status === 'rejected') ctx.logger('logbook').warn(result.reason)
    }
    for (const plugin of [...plugins].reverse()) {
      try {
        await plugin.dispose()
      } catch (error) {
        ctx.logger('logbook').warn(error)
      }
    }
    await exporter.dispose()
  }
  return {
    ctx,
    get sessions() {
      return required<SessionStore>(ctx, 'sessions', 'the session store')
    },
    persistence: () => required<SessionPersistence>(ctx, 'sessionPersistence', 'session persistence'),
    agents: () => required<AgentsService>(ctx, 'agents', 'the agent loop'),
    compaction: () => required<CompactionService>(ctx, 'compaction', 'compaction'),
    projections: () => ctx.get('sessionProjections') as SessionProjections | undefined,
    log: exporter,
    search: () => (search ??= loadSearch()),
    dispose: () => (disposing ??= dispose()),
  }
}
