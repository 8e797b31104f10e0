/**
 * The loop's shared state, kept on a plain object (Cordis hands callers a tracing proxy of the service): config,
 * live agents, persistence claims seen on `persistence/claimed` / `persistence/released`, the followers of
 * `session/event`, the context-section registry, and contained event delivery.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { LlmService } from '@logbook/llm'
import { emitContained, type Session, type SessionEvent, type SessionStore, warnFailures } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import type { ToolsService } from '@logbook/tools'
import { ContextSections } from './context-sections.ts'
import { SessionFollowers } from './follow.ts'
import type { AgentLoopConfig } from './types.ts'

/** Something the runtime disposes at factory teardown. */
export interface Disposable {
  dispose(): Promise<void>
}

/** An agent as the runtime's session/event subscription and pre-commit check see it. */
export interface FollowingAgent {
  observe(session: Session, event: SessionEvent): void
  admit(event: SessionEvent): void
}

/** State and services of one `agents` plugin instance. */
export class LoopRuntime {
  readonly agents = new Set<Disposable>()
  /** The agent on each live session object. */
  readonly bySession = new Map<Session, FollowingAgent>()
  readonly followers: SessionFollowers
  readonly contextSections = new ContextSections()
  /** sessionId → ownerId of the persistence claim currently held on it in this process. */
  private readonly claims = new Map<string, string>()
  private readonly releaseWaiters = new Map<string, (() => void)[]>()
  private readonly log: ReturnType<Context['logger']>
  private readonly warned = new Set<string>()
  /** Logs a contained listener failure as `<event> listener threw: <error>`. */
  private readonly failures = warnFailures(text => this.warn(text))

  constructor(readonly ctx: Context, readonly config: AgentLoopConfig) {
    this.log = ctx.logger('agents')
    this.followers = new SessionFollowers(text => this.warn(text))
  }

  /**
   * Follow `agent`'s session: its committed events reach `agent.observe`, its candidate events `agent.admit`.
   * Returns the function that stops it.
   */
  follow(session: Session, agent: FollowingAgent): () => void {
    this.bySession.set(session, agent)
    const stop = this.followers.add(session, { event: (s, event) => agent.observe(s, event), ended: () => {} })
    return () => {
      stop()
      if (this.bySession.get(session) === agent) this.bySession.delete(session)
    }
  }

  /** The pre-commit check that routes candidates on agents' sessions to `admit` (spec 03 §5.7). */
  admit(session: Session, event: SessionEvent): void {
    this.bySession.get(session)?.admit(event)
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

  /** `warn`, once per distinct text for the life of the plugin (a failure that recurs on every request). */
  warnOnce(text: string): void {
    if (this.warned.has(text)) return
    this.warned.add(text)
    this.warn(text)
  }

  /** Deliver `name` to each listener, containing (and logging) each listener's failure. */
  emitContained(name: string, ...payload: unknown[]): void {
    emitContained(this.ctx.events, this.failures, name, payload)
  }
}
