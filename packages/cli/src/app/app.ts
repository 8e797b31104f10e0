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
 * An `App` over `ctx`; `plugins` are disposed in reverse order after every agent, then the log exporter.
 */
export function createApp(ctx: Context, plugins: readonly Disposable[], exporter: StderrLogExporter): App {
  let disposing: Promise<void> | undefined
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
    dispose: () => (disposing ??= dispose()),
  }
}
