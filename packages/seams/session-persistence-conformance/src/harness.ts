/**
 * The per-test harness: a fresh `StoreFixture` per test, mounts (`@logbook/session` + the backend plugin in a new
 * Context; mounting again = reopening the store), tracked child processes, and cleanup of all of them after the test.
 */

import { afterEach, beforeEach } from 'vitest'
import { Context, type Fiber, type Message } from '@deepseek-ai/cordis'
import SessionStore, { openTurnClosers, type Session, type SessionEvent, type SessionHeader, type SessionId, type SessionMeta } from '@logbook/session'
import type { PersistenceCommittedEvent, SessionHandle, SessionPersistence } from '@logbook/session-persistence'
import { captureLogs } from '@logbook/test-kit'
import { header as buildHeader } from './events.ts'
import type { ConformanceOptions, DamageKit, StoreFixture } from './types.ts'
import { WorkerProcess } from './worker/parent.ts'

/**
 * Config keys the suite adds to every mount unless a case overrides them: a short write-behind window and the
 * shortest retry delays the schema allows, so no case waits on default timings.
 */
export const TEST_CONFIG: Readonly<Record<string, unknown>> = Object.freeze({
  writeBatchMaxDelayMs: 10,
  retryInitialDelayMs: 10,
  retryMaxDelayMs: 20,
})

/** One mounted app: a Context with `sessions` and (unless unloaded) the backend. */
export class Mount {
  /** Every `persistence/committed` payload seen by this app, in order. */
  readonly committed: PersistenceCommittedEvent[] = []
  /** Every log message (all levels) of this app. */
  readonly logs: Message[]
  private backend: Fiber | undefined
  private disposed = false

  constructor(readonly app: Context, private readonly storeFiber: Fiber, private readonly fixture: StoreFixture, private readonly overrides: Readonly<Record<string, unknown>>) {
    this.logs = captureLogs(app).records
    app.on('persistence/committed', (event) => {
      this.committed.push(event)
    })
  }

  /** `ctx.sessions`. */
  get sessions(): SessionStore {
    return this.app.get('sessions') as SessionStore
  }

  /** `ctx.sessionPersistence`. @throws Error when the backend is not loaded. */
  get persistence(): SessionPersistence {
    const service = this.app.get('sessionPersistence') as SessionPersistence | undefined
    if (!service) throw new Error('conformance: sessionPersistence is not loaded in this mount')
    return service
  }

  /** Load the backend plugin with the fixture config, `TEST_CONFIG`, the mount's and these overrides. */
  async load(config: Readonly<Record<string, unknown>> = {}): Promise<SessionPersistence> {
    if (this.backend) throw new Error('conformance: backend already loaded in this mount')
    const fiber = this.app.plugin(this.fixture.plugin, { ...this.fixture.config, ...TEST_CONFIG, ...this.overrides, ...config })
    this.backend = fiber
    await fiber
    return this.persistence
  }

  /** Dispose the backend plugin (its teardown flushes live sessions and releases locks); sessions stay live. */
  async unload(): Promise<void> {
    const fiber = this.backend
    this.backend = undefined
    if (fiber) await fiber.dispose()
  }

  /** Unload the backend, then dispose `sessions`. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return
    this.disposed = true
    await this.unload()
    await this.storeFiber.dispose()
  }

  /** A published live session (prepare → enter → announce) with `detach` to end it (`session/disposed`). */
  live(id: string, options: { readonly meta?: SessionMeta; readonly seed?: readonly SessionEvent[]; readonly inheritedEventCount?: number } = {}): { session: Session; detach: () => void } {
    const session = this.sessions.prepare(id as SessionId, { meta: { cwd: '/home/user/conformance', ...options.meta }, ...(options.seed ? { seed: options.seed } : {}), ...(options.inheritedEventCount === undefined ? {} : { inheritedEventCount: options.inheritedEventCount }) })
    const detach = this.sessions.enter(session)
    this.sessions.announce(session)
    return { session, detach }
  }

  /** `create(header)`, append `events` (if any), close; resolves with the stored revision (`null` if nothing). */
  async store(id: string, events: readonly SessionEvent[], headerExtra: Record<string, unknown> = {}): Promise<string | null> {
    const handle = await this.persistence.create(buildHeader(id, headerExtra))
    try {
      if (events.length > 0) await handle.append(events)
      return handle.revision
    } finally {
      await handle.close()
    }
  }

  /**
   * Resume `id` as chapter 03 §5.1 does (02 §4.3 steps 2–6): open for write, read, append the interrupted-turn
   * closers, prepare the session from the balanced log, hand the handle off, enter and announce.
   */
  async resume(id: string, opts: { readonly signal?: AbortSignal } = {}): Promise<{ session: Session; handle: SessionHandle; events: readonly SessionEvent[]; closers: SessionEvent[]; detach: () => void }> {
    const handle = await this.persistence.open(id, 'write', opts)
    try {
      const events = await handle.read(0, opts)
      const closers = openTurnClosers(events, { kind: 'interrupted' })
      if (closers.length > 0) await handle.append(closers, opts)
      const session = this.sessions.prepare(id as SessionId, {
        seed: [...events, ...closers], meta: handle.header as SessionHeader,
        inheritedEventCount: handle.inheritedEventCount, eventState: handle.eventState,
      })
      handle.handOff()
      const detach = this.sessions.enter(session)
      this.sessions.announce(session)
      return { session, handle, events, closers, detach }
    } catch (error) {
      await handle.close()
      throw error
    }
  }
}

/** The per-describe harness: valid inside a test (between its `beforeEach` and `afterEach`). */
export class Harness {
  private current: StoreFixture | undefined
  private readonly mounts: Mount[] = []
  private readonly workers: WorkerProcess[] = []
  private readonly spawning = new Set<Promise<WorkerProcess>>()

  constructor(readonly options: ConformanceOptions) {}

  /** The capability flags of the target. */
  get caps(): ConformanceOptions['capabilities'] {
    return this.options.capabilities
  }

  /** This test's fixture. */
  get fixture(): StoreFixture {
    if (!this.current) throw new Error('conformance: no fixture outside a test')
    return this.current
  }

  /** The fixture's damage kit. @throws Error when the fixture has none although `capabilities.damage` is set. */
  get damage(): DamageKit {
    const kit = this.fixture.damage
    if (!kit) throw new Error(`conformance: ${this.options.name} declares damage '${String(this.caps.damage)}' but its fixture has no damage kit`)
    return kit
  }

  /** Mount `sessions` and (unless `backend: false`) the backend in a new Context. */
  async mount(overrides: Readonly<Record<string, unknown>> = {}, options: { readonly backend?: boolean } = {}): Promise<Mount> {
    const app = new Context()
    const store = app.plugin(SessionStore)
    await store
    const mount = new Mount(app, store, this.fixture, overrides)
    this.mounts.push(mount)
    if (options.backend !== false) await mount.load()
    return mount
  }

  /** Fork a child process mounting the fixture's worker spec (tracked: killed after the test). */
  async worker(options: { readonly eventTypes?: readonly string[]; readonly config?: Readonly<Record<string, unknown>> } = {}): Promise<WorkerProcess> {
    const spec = this.fixture.worker
    if (!spec) throw new Error(`conformance: ${this.options.name} declares crossProcess/killSafe but its fixture has no worker`)
    const spawning = WorkerProcess.spawn(spec, { eventTypes: options.eventTypes ?? [], config: { ...TEST_CONFIG, ...options.config } })
    this.spawning.add(spawning)
    try {
      const worker = await spawning
      this.workers.push(worker)
      return worker
    } finally {
      this.spawning.delete(spawning)
    }
  }

  /** @internal */
  async setUp(): Promise<void> {
    this.current = await this.options.create()
  }

  /** @internal Kill workers, dispose mounts (newest first), destroy the fixture. */
  async tearDown(): Promise<void> {
    const errors: unknown[] = []
    // A child still booting when the test ended is killed too (its spawn failure was the test's concern).
    for (const spawning of [...this.spawning]) await spawning.then(w => w.kill(), () => {})
    for (const worker of this.workers.splice(0)) await worker.kill().catch((e: unknown) => errors.push(e))
    for (const mount of this.mounts.splice(0).reverse()) await mount.dispose().catch((e: unknown) => errors.push(e))
    const fixture = this.current
    this.current = undefined
    if (fixture) await this.options.destroy(fixture)
    if (errors.length > 0) throw new AggregateError(errors, 'conformance: cleanup failed')
  }
}

/** Create a harness bound to the enclosing `describe`: fresh fixture before each test, full cleanup after. */
export function useHarness(options: ConformanceOptions): Harness {
  const harness = new Harness(options)
  beforeEach(() => harness.setUp())
  afterEach(() => harness.tearDown())
  return harness
}
