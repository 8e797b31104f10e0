/**
 * `ctx.sessionProjections` (03 §1.2): the projection registry as a Cordis Service. The instance is a thin shell over
 * a plain core object, because Cordis hands callers a tracing proxy of the service whose `ctx` is the caller's
 * context — which is what binds `register` and `onChanged` to the calling fiber.
 */
import { type Context, Service } from '@deepseek-ai/cordis'
import { emitContained, type Session, type SessionEvent, warnFailures } from '@logbook/session'
import type {} from '@logbook/session-persistence'
import { captureSavedState, SavedStateWriter } from './saved-state.ts'
import { coldSnapshot } from './cold.ts'
import { SessionProjectionConfigSchema } from './config.ts'
import { toUnit } from './definition.ts'
import { persistenceNotConfigured } from './errors.ts'
import './events.ts'
import { ProjectionRegistry } from './registry.ts'
import { statsProjection } from './stats.ts'
import { SESSION_TITLE_EVENT, titleProjection } from './title.ts'
import { todosProjection } from './todos.ts'
import type {
  ColdSnapshotOptions, ProjectionChangeListener, ProjectionCheckpointData, ProjectionDefinition, ProjectionSnapshot,
  ProjectionStateOf, ProjectionStates, SessionProjectionConfig,
} from './types.ts'

/** The state behind the service, on a plain object. */
interface Core {
  readonly ctx: Context
  readonly registry: ProjectionRegistry
  readonly warn: (text: string) => void
}

/** Emit `projection/checkpointed`, containing each listener's failure. */
function emitCheckpointed(ctx: Context, cp: ProjectionCheckpointData, warn: (text: string) => void): void {
  const payload = { sessionId: cp.sessionId, seq: cp.seq, anchor: cp.anchor, keys: Object.freeze(Object.keys(cp.rows)) }
  emitContained(ctx.events, warnFailures(warn), 'projection/checkpointed', [payload])
}

/**
 * The projection registry: units fold every session's events incrementally (one `session/event` subscription),
 * snapshots read their views, and live sessions get projection checkpoints when persistence is loaded.
 */
export class SessionProjections extends Service {
  static inject = ['sessions']
  static Config = SessionProjectionConfigSchema

  /** @internal The state and algorithms; not part of the public API. */
  readonly core: Core

  constructor(ctx: Context, config: SessionProjectionConfig) {
    super(ctx, 'sessionProjections')
    const logger = ctx.logger('session-projection')
    const warn = (text: string): void => logger.warn('%s', text)
    const registry = new ProjectionRegistry(warn)
    this.core = { ctx, registry, warn }
    const sessions = ctx.sessions
    sessions.registerEventType(SESSION_TITLE_EVENT)
    const builtins = [
      [config.builtins.stats, statsProjection], [config.builtins.todos, todosProjection], [config.builtins.title, titleProjection],
    ] as const
    for (const [enabled, def] of builtins) {
      if (enabled) ctx.effect(() => registry.add(toUnit(def)), `sessionProjections.register(${def.key})`)
    }
    const isLive = (session: Session): boolean => sessions.get(session.id) === session
    const writer = !config.checkpoint.enabled ? undefined : new SavedStateWriter({
      capture: session => captureSavedState(registry, session, warn),
      persistence: () => ctx.get('sessionPersistence'),
      isLive,
      flush: session => sessions.flush(session),
      written: cp => emitCheckpointed(ctx, cp, warn),
      warn,
    }, config.checkpoint.everyEvents)
    ctx.on('session/event', (session: Session, event: SessionEvent) => {
      const changed = registry.drive(session, event)
      writer?.observe(session, event, changed)
    })
    if (writer !== undefined) ctx.effect(() => () => writer.close(), 'sessionProjections checkpoints')
  }

  /**
   * Register a unit on the calling fiber; the returned disposer (or the fiber's disposal) removes it and its cells.
   * Registering again later refolds from `init`.
   * @throws ProjectionError `INVALID_DEFINITION` (bad key, version, function or schema); `DUPLICATE_KEY` whenever
   * the key is taken (any version, even the same object).
   */
  register<K extends string>(def: ProjectionDefinition<ProjectionStateOf<K>, unknown, K>): () => void {
    const unit = toUnit(def)
    const registry = this.core.registry
    return this.ctx.effect(() => registry.add(unit), `sessionProjections.register(${unit.key})`)
  }

  /** The unit's state for `session`, caught up first; undefined when the key is unregistered or apply-faulted. */
  stateOf<K extends keyof ProjectionStates>(session: Session, key: K): ProjectionStates[K] | undefined
  stateOf(session: Session, key: string): unknown
  stateOf(session: Session, key: string): unknown {
    return this.core.registry.stateOf(session, key)
  }

  /**
   * Synchronously catch every cell of `session` up and read the views: `asOfSeq = S.seq − 1` (−1 when empty),
   * `values` per viewable unit that is not faulted, `faults` per faulted unit (`view` runs on each call).
   */
  snapshot(session: Session): ProjectionSnapshot {
    return this.core.registry.snapshot(session)
  }

  /**
   * Call `listener` once per viewable unit whose state changed since it was last reported, after all units processed
   * a live event; bound to the calling fiber. Failures are contained per listener.
   */
  onChanged(listener: ProjectionChangeListener): () => void {
    const registry = this.core.registry
    return this.ctx.effect(() => registry.listen(listener), 'sessionProjections.onChanged()')
  }

  /** Drop the cell of `key` (every cell when omitted) for `session` and refold it from the in-memory log. */
  rebuild(session: Session, key?: string): void {
    this.core.registry.rebuild(session, key)
  }

  /**
   * The snapshot of a stored session from its projection checkpoint plus the stored events after it; never writes
   * and never takes write ownership.
   * @throws ProjectionError `PERSISTENCE_NOT_CONFIGURED` without persistence; the persistence error for an unknown
   * id (`SESSION_NOT_FOUND`); `signal.reason` once aborted.
   */
  async coldSnapshot(id: string, opts: ColdSnapshotOptions = {}): Promise<ProjectionSnapshot> {
    const { ctx, registry } = this.core
    const persistence = ctx.get('sessionPersistence')
    if (persistence === undefined) throw persistenceNotConfigured()
    return coldSnapshot(persistence, () => registry.registrations().map(reg => reg.unit), id, opts.signal)
  }

  /**
   * The synchronous checkpoint capture (03 §1.4 step 2) without writing: every cell caught up, `seq = S.seq − 1`,
   * its anchor, one row per non-faulted unit with a lossless-JSON state; undefined for an empty log.
   */
  checkpoint(session: Session): ProjectionCheckpointData | undefined {
    const { registry, warn } = this.core
    return captureSavedState(registry, session, warn)
  }
}
