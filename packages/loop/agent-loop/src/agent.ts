/**
 * `AgentHandle` (spec 03 §5.1, §5.6, §5.7): the input queue (FIFO, one turn per input), status and its
 * `agent/status` announcements, cancellation, maintenance leases and the ordered teardown of `dispose()`. The agent
 * follows its session's committed events: they keep the retained runtime context current and bring input from other
 * clients (a user's message on an idle session starts a turn; `input/queued` waits for its turn).
 */

import type { Session, SessionEvent, SessionId } from '@logbook/session'
import { AgentError } from './errors.ts'
import type { SessionHost } from './host.ts'
import {
  assertQueuedInput, INPUT_QUEUED_EVENT, inputQueuedError, isUserInput, logQueuedLater, pendingInputs, type TurnInput,
} from './input.ts'
import { validateOptions } from './options.ts'
import { ContextTracker } from './runtime-context.ts'
import type { LoopRuntime } from './runtime.ts'
import { runTurn, type TurnContext } from './turn.ts'
import type {
  AgentCancelKind, AgentHandle, AgentOptions, AgentStatus, CancelOptions, MaintenanceLease, TurnResult,
} from './types.ts'
import { nextTurnNumber } from './log-scan.ts'

interface Queued {
  readonly input: TurnInput
  resolve(result: TurnResult): void
  reject(error: unknown): void
}

/** Input recorded in the log has no caller waiting on it: its turn's outcome is in the log. */
const UNOBSERVED = { resolve: (): void => {}, reject: (): void => {} }

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
  readonly context: ContextTracker
  private readonly host: SessionHost
  private current: AgentOptions
  private state: AgentStatus = 'idle'
  private turnNumber: number | null = null
  private owning = 0
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
    this.context = new ContextTracker(init.session)
  }

  /** Queue the input a previous lifecycle left waiting in the log; called once the agent is announced. */
  start(): void {
    for (const input of pendingInputs(this.session.events)) this.enqueue(input)
  }

  /** Tie the agent to its owner: disposing `release` (the owner's effect) is left to the caller. */
  bindOwner(release: () => void): void {
    this.releaseOwner = release
  }

  get status(): AgentStatus {
    return this.state
  }

  get turn(): number | null {
    return this.turnNumber
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
      this.queue.push({ input: { kind: 'prompt', text }, resolve, reject })
      this.pump()
    })
  }

  own<T>(append: () => T): T {
    this.owning++
    try {
      return append()
    } finally {
      this.owning--
    }
  }

  turnStarted(turn: number): void {
    if (this.turnNumber !== turn) this.setStatus(this.state, turn)
  }

  waitingForTools(waiting: boolean): void {
    if (this.state !== 'running' && this.state !== 'waiting-for-tool') return
    this.setStatus(waiting ? 'waiting-for-tool' : 'running', this.turnNumber)
  }

  /**
   * Pre-commit admission of an append to this agent's session: a malformed `input/queued` is refused, and a user's
   * message while the agent is busy is refused and logged as `input/queued` on the next microtask instead.
   * @throws AgentError `INVALID_INPUT`, `INPUT_QUEUED`.
   */
  admit(event: SessionEvent): void {
    if (event.type === INPUT_QUEUED_EVENT) {
      assertQueuedInput(event)
      return
    }
    if (this.owning > 0 || this.disposal !== undefined || !isUserInput(event)) return
    const busy = this.busyWith()
    if (busy === undefined) return
    logQueuedLater(this.session, (event as SessionEvent<'user/message'>).data, text => this.runtime.warn(`agent "${this.id}": ${text}`))
    throw inputQueuedError(this.id, busy)
  }

  /** Follow one committed event of the session (the loop's `session/event` subscription). */
  observe(session: Session, event: SessionEvent): void {
    this.context.observe(session, event)
    if (this.disposal !== undefined) return
    if (event.type === INPUT_QUEUED_EVENT) {
      this.enqueue({ kind: 'queued', seq: event.seq, input: event.data })
    } else if (this.owning === 0 && isUserInput(event)) {
      this.enqueue({ kind: 'logged', seq: event.seq })
    }
  }

  private enqueue(input: TurnInput): void {
    this.queue.push({ input, ...UNOBSERVED })
    this.pump()
  }

  /** Why a user's message cannot start a turn now, or `undefined` when the agent is idle. */
  private busyWith(): string | undefined {
    if (this.running !== undefined) return `running turn ${String(this.turnNumber)}`
    if (this.lease !== undefined) return 'in maintenance'
    if (this.queue.length > 0) return 'about to run queued input'
    if (this.orphanedLock !== undefined) return 'blocked by an orphaned compaction lock'
    return undefined
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise(resolve => this.idleWaiters.push(resolve))
  }

  cancel(cause: AgentCancelKind = 'user', options: CancelOptions = {}): void {
    if (!CAUSES.includes(cause)) throw new TypeError(`cancel cause must be one of ${CAUSES.join(', ')}, got ${String(cause)}`)
    if (options.keepQueue !== true) {
      // Input recorded in the log stays queued: dropping it would lose a message another client gave.
      const kept = this.queue.filter(queued => queued.input.kind !== 'prompt')
      for (const queued of this.queue.splice(0, this.queue.length, ...kept)) {
        if (queued.input.kind !== 'prompt') continue
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

  private setStatus(status: AgentStatus, turn: number | null = null): void {
    if (this.state === status && this.turnNumber === turn) return
    this.state = status
    this.turnNumber = turn
    this.runtime.emitContained('agent/status', this, status, turn)
  }

  /** Start the next queued turn when nothing runs; otherwise settle to `idle`. */
  private pump(): void {
    if (this.running !== undefined || this.lease !== undefined || this.disposal !== undefined) return
    if (this.orphanedLock !== undefined) {
      // No turn may start: prompts are refused; queued input stays in the log, where a resumed agent finds it.
      for (const queued of this.queue.splice(0)) if (queued.input.kind === 'prompt') queued.reject(this.needsResume())
    }
    const next = this.queue.shift()
    if (next === undefined) {
      this.setStatus('idle')
      this.resolveIdle()
      return
    }
    // The number the turn/start will carry; `turnStarted` corrects it should another writer have logged a turn.
    this.setStatus('running', nextTurnNumber(this.session.events))
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
        // Input recorded in the log is not dropped by a cancel: it goes back to the head of the queue.
        if (next.input.kind !== 'prompt') this.queue.unshift(next)
        throw new AgentError('DISCARDED', `prompt discarded: agent "${this.id}" was cancelled (${running.cause ?? 'user'})`)
      }
      return runTurn(this, next.input, running.controller.signal, () => running.cause)
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
    this.runtime.emitContained('agent/disposed', this)
    this.resolveIdle()
    this.releaseOwner()
    if (failure !== undefined) throw failure
  }
}
