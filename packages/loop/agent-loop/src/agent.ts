/**
 * `AgentHandle` (spec 03 §5.1): the prompt queue (FIFO, one turn per prompt), status and its `agent/status`
 * announcements, cancellation, maintenance leases and the ordered teardown of `dispose()`.
 */

import type { Session, SessionId } from '@logbook/session'
import { AgentError } from './errors.ts'
import type { SessionHost } from './host.ts'
import { validateOptions } from './options.ts'
import type { LoopRuntime } from './runtime.ts'
import { runTurn, type TurnContext } from './turn.ts'
import type {
  AgentCancelKind, AgentHandle, AgentOptions, AgentStatus, CancelOptions, MaintenanceLease, TurnResult,
} from './types.ts'

interface Queued {
  readonly text: string
  resolve(result: TurnResult): void
  reject(error: unknown): void
}

interface Running {
  readonly controller: AbortController
  cause: AgentCancelKind | undefined
  done: Promise<void>
}

interface Lease {
  readonly controller: AbortController
  readonly done: Promise<void>
}

const CAUSES: readonly AgentCancelKind[] = ['user', 'parent', 'disposed']

/** What an agent is built from once its session is published on its host. */
export interface AgentInit {
  readonly runtime: LoopRuntime
  readonly session: Session
  readonly host: SessionHost
  readonly options: AgentOptions
}

/** One agent on one live session; see `AgentHandle` for the contract. */
export class Agent implements AgentHandle, TurnContext {
  readonly id: SessionId
  readonly session: Session
  readonly runtime: LoopRuntime
  readonly handle: AgentHandle = this
  headerLogged = false
  systemWarned = false
  private readonly host: SessionHost
  private current: AgentOptions
  private state: AgentStatus = 'idle'
  private readonly queue: Queued[] = []
  private running: Running | undefined
  private lease: Lease | undefined
  private idleWaiters: (() => void)[] = []
  private orphanedLock: number | undefined
  private disposal: Promise<void> | undefined
  private releaseOwner: () => void = () => {}

  constructor(init: AgentInit) {
    this.runtime = init.runtime
    this.session = init.session
    this.id = init.session.id
    this.host = init.host
    this.current = init.options
  }

  /** Tie the agent to its owner: disposing `release` (the owner's effect) is left to the caller. */
  bindOwner(release: () => void): void {
    this.releaseOwner = release
  }

  get status(): AgentStatus {
    return this.state
  }

  get options(): AgentOptions {
    return this.current
  }

  set options(value: AgentOptions) {
    this.current = validateOptions(value)
  }

  send(text: string): Promise<TurnResult> {
    if (this.disposal !== undefined) return Promise.reject(new AgentError('DISPOSED', `agent "${this.id}" is disposed`))
    if (typeof text !== 'string') return Promise.reject(new TypeError('prompt must be a string'))
    if (this.orphanedLock !== undefined) return Promise.reject(this.needsResume())
    return new Promise<TurnResult>((resolve, reject) => {
      this.queue.push({ text, resolve, reject })
      this.pump()
    })
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise(resolve => this.idleWaiters.push(resolve))
  }

  cancel(cause: AgentCancelKind = 'user', options: CancelOptions = {}): void {
    if (!CAUSES.includes(cause)) throw new TypeError(`cancel cause must be one of ${CAUSES.join(', ')}, got ${String(cause)}`)
    if (options.keepQueue !== true) {
      for (const queued of this.queue.splice(0)) {
        queued.reject(new AgentError('DISCARDED', `prompt discarded: agent "${this.id}" was cancelled (${cause})`))
      }
    }
    const reason = new DOMException(`agent "${this.id}" was cancelled (${cause})`, 'AbortError')
    if (this.running !== undefined && !this.running.controller.signal.aborted) {
      this.running.cause = cause
      this.running.controller.abort(reason)
    }
    if (this.lease !== undefined && !this.lease.controller.signal.aborted) this.lease.controller.abort(reason)
    if (this.isIdle()) this.resolveIdle()
  }

  dispose(): Promise<void> {
    return (this.disposal ??= this.teardown())
  }

  beginMaintenance(): MaintenanceLease | undefined {
    if (this.state !== 'idle' || this.disposal !== undefined || this.running !== undefined || this.lease !== undefined) {
      return undefined
    }
    const controller = new AbortController()
    let finish!: () => void
    const lease: Lease = { controller, done: new Promise<void>(resolve => { finish = resolve }) }
    this.lease = lease
    this.setStatus('maintenance')
    let ended = false
    return {
      signal: controller.signal,
      end: (orphanedLockSeq?: number) => {
        if (ended) return
        ended = true
        if (orphanedLockSeq !== undefined) this.orphanedLock = orphanedLockSeq
        this.lease = undefined
        finish()
        this.pump()
      },
    }
  }

  private needsResume(): AgentError {
    return new AgentError('SESSION_NEEDS_RESUME',
      `compaction lock at seq ${String(this.orphanedLock)} is orphaned; resume the session to clear it`)
  }

  private isIdle(): boolean {
    return this.running === undefined && this.lease === undefined && this.queue.length === 0
  }

  private resolveIdle(): void {
    for (const resolve of this.idleWaiters.splice(0)) resolve()
  }

  private setStatus(status: AgentStatus): void {
    if (this.state === status) return
    this.state = status
    this.runtime.emitContained('agent/status', this, status)
  }

  /** Start the next queued turn when nothing runs; otherwise settle to `idle`. */
  private pump(): void {
    if (this.running !== undefined || this.lease !== undefined || this.disposal !== undefined) return
    if (this.orphanedLock !== undefined) {
      for (const queued of this.queue.splice(0)) queued.reject(this.needsResume())
    }
    const next = this.queue.shift()
    if (next === undefined) {
      this.setStatus('idle')
      this.resolveIdle()
      return
    }
    this.setStatus('running')
    const running: Running = { controller: new AbortController(), cause: undefined, done: Promise.resolve() }
    this.running = running
    // The queue moves on before the prompt settles, so an awaited `send` already sees the next status.
    const settle = (): void => {
      this.running = undefined
      this.pump()
    }
    // The turn starts on a later tick: `send` never appends synchronously (it may be called from a session/event
    // listener of this very session), and a prompt cancelled before its turn/start is discarded, not run.
    const start = async (): Promise<TurnResult> => {
      await Promise.resolve()
      if (running.controller.signal.aborted) {
        throw new AgentError('DISCARDED', `prompt discarded: agent "${this.id}" was cancelled (${running.cause ?? 'user'})`)
      }
      return runTurn(this, next.text, running.controller.signal, () => running.cause)
    }
    running.done = start().then(
      result => {
        settle()
        next.resolve(result)
      },
      (error: unknown) => {
        settle()
        next.reject(error)
      },
    )
  }

  /** `dispose()`: cancel, let the turn or maintenance close, flush, detach, then wait for the persistence release. */
  private async teardown(): Promise<void> {
    this.cancel('disposed')
    await this.running?.done
    await this.lease?.done
    const sessions = this.runtime.ctx.get('sessions')
    let failure: unknown
    if (sessions !== undefined && sessions.get(this.id) === this.session) {
      try {
        await sessions.flush(this.session)
      } catch (error) {
        failure = error
      }
    }
    // A failed flush leaves retirement retrying in the background: do not wait for a release that may never come.
    const released = failure === undefined ? this.runtime.whenReleased(this.id) : undefined
    await this.host.dispose()
    if (released !== undefined) await released
    this.runtime.agents.delete(this)
    this.setStatus('disposed')
    this.resolveIdle()
    this.releaseOwner()
    if (failure !== undefined) throw failure
  }
}
