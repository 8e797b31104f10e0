/**
 * The loop's shared state, kept on a plain object (Cordis hands callers a tracing proxy of the service): config,
 * live agents, persistence claims seen on `persistence/claimed` / `persistence/released`, and contained event
 * delivery.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { LlmService } from '@logbook/llm'
import { emitContained, type SessionStore, warnFailures } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import type { ToolsService } from '@logbook/tools'
import type { AgentLoopConfig } from './types.ts'

/** Something the runtime disposes at factory teardown. */
export interface Disposable {
  dispose(): Promise<void>
}

/** State and services of one `agents` plugin instance. */
export class LoopRuntime {
  readonly agents = new Set<Disposable>()
  /** sessionId → ownerId of the persistence claim currently held on it in this process. */
  private readonly claims = new Map<string, string>()
  private readonly releaseWaiters = new Map<string, (() => void)[]>()
  private readonly log: ReturnType<Context['logger']>
  /** Logs a contained listener failure as `<event> listener threw: <error>`. */
  private readonly failures = warnFailures(text => this.warn(text))

  constructor(readonly ctx: Context, readonly config: AgentLoopConfig) {
    this.log = ctx.logger('agents')
  }

  /**
   * Follow `persistence/claimed` / `persistence/released` on `ctx`; returns the listeners' disposers. The loop yields
   * them from its teardown effect, so they outlive the agents' disposal, which waits for those very releases (Cordis
   * disposes a fiber's effects concurrently: listeners registered beside the teardown are gone before releases come).
   */
  trackClaims(): (() => unknown)[] {
    const claimed = this.ctx.on('persistence/claimed', event => {
      this.claims.set(event.sessionId, event.ownerId)
    })
    const released = this.ctx.on('persistence/released', event => {
      if (this.claims.get(event.sessionId) === event.ownerId) this.claims.delete(event.sessionId)
      const waiters = this.releaseWaiters.get(event.ownerId)
      this.releaseWaiters.delete(event.ownerId)
      for (const resolve of waiters ?? []) resolve()
    })
    return [claimed, released]
  }

  get sessions(): SessionStore {
    return this.ctx.sessions
  }

  get llm(): LlmService {
    return this.ctx.llm
  }

  get tools(): ToolsService {
    return this.ctx.tools
  }

  /** The persistence seam when one is loaded (optional dependency, read at each use). */
  persistence(): SessionPersistence | undefined {
    return this.ctx.get('sessionPersistence') as SessionPersistence | undefined
  }

  /** A promise settling when the claim now held on `sessionId` is released, or `undefined` when none is held. */
  whenReleased(sessionId: string): Promise<void> | undefined {
    const ownerId = this.claims.get(sessionId)
    if (ownerId === undefined) return undefined
    return new Promise(resolve => {
      const waiters = this.releaseWaiters.get(ownerId) ?? []
      waiters.push(resolve)
      this.releaseWaiters.set(ownerId, waiters)
    })
  }

  warn(text: string): void {
    this.log.warn('%s', text)
  }

  /** Deliver `name` to each listener, containing (and logging) each listener's failure. */
  emitContained(name: string, ...payload: unknown[]): void {
    emitContained(this.ctx.events, this.failures, name, payload)
  }
}
