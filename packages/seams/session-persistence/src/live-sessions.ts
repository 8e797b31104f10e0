/**
 * Binding live sessions (spec 02 §2.1): every session in `ctx.sessions` gets one live writer, bound synchronously
 * inside `session/created` (or at its first event or flush, or at plugin start for sessions already live), fed by
 * `session/event`, flushed by `session/flush` and retired by `session/disposed`.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Session, SessionEvent } from '@logbook/session'
import { HandleImpl } from './handle.ts'
import type { Host } from './host.ts'
import type { Binding } from './live-binding.ts'
import { LiveWriter } from './live-writer.ts'
import { claimLockedError } from './owners.ts'

/** The live writers of one coordinator. */
export class LiveSessions {
  private readonly writers = new Map<Session, LiveWriter>()
  /** Retiring writers whose session object was bound again before they finished (still flushed at teardown). */
  private readonly displaced = new Set<LiveWriter>()
  private stopped = false

  /** Registers the four `session/*` listeners on `ctx`, in this order (§2). */
  constructor(ctx: Context, private readonly host: Host) {
    ctx.on('session/created', (session: Session) => {
      this.bind(session)
    })
    ctx.on('session/event', (session: Session, event: SessionEvent) => {
      if (this.stopped) return
      ;(this.writers.get(session) ?? this.bind(session))?.onEvent(event)
    })
    ctx.on('session/flush', (session: Session) => {
      const writer = this.writers.get(session) ?? this.bind(session)
      if (writer === undefined) throw host.disposedError() // teardown began: nothing will store this session
      return writer.flush()
    })
    ctx.on('session/disposed', (session: Session) => {
      this.writers.get(session)?.retire()
    })
  }

  /** Bind every session of `sessions` (those live before the plugin started). */
  bindAll(sessions: Iterable<Session>): void {
    for (const session of sessions) this.bind(session)
  }

  /** Teardown began: no session is bound from now on. */
  stop(): void {
    this.stopped = true
  }

  /** Every writer, retiring ones included. */
  all(): LiveWriter[] {
    return [...this.writers.values(), ...this.displaced]
  }

  /** Bind a live session (idempotent per object); resolves the claim synchronously. */
  private bind(session: Session): LiveWriter | undefined {
    if (this.stopped) return undefined
    const existing = this.writers.get(session)
    if (existing !== undefined && !existing.retiring) return existing
    // The same object re-entered and announced while its old writer retires: a new binding waits for it (§2.5).
    if (existing !== undefined) this.displaced.add(existing)
    const id = session.id
    const { claims } = this.host
    const claim = claims.get(id)
    let binding: Binding
    if (claim === undefined) {
      binding = { kind: 'fresh', claim: claims.register(id, 'live-session') }
    } else if (claim.kind === 'handle' && claim.handedOff instanceof HandleImpl) {
      const handle = claim.handedOff
      claim.handedOff = undefined
      claim.kind = 'live-session'
      binding = { kind: 'adopt', claim, handover: handle.adopt() }
    } else if (claim.retiring !== undefined) {
      binding = { kind: 'wait-retiring', writer: claim.retiring }
    } else {
      binding = { kind: 'locked', error: claimLockedError(id, claim.kind) }
    }
    const writer = new LiveWriter(this.host, session, binding, released => this.drop(released))
    if (binding.kind === 'fresh' || binding.kind === 'adopt') binding.claim.holder = writer
    this.writers.set(session, writer)
    return writer
  }

  private drop(writer: LiveWriter): void {
    if (this.writers.get(writer.session) === writer) this.writers.delete(writer.session)
    this.displaced.delete(writer)
  }
}
