/**
 * Test helpers: a Cordis app with the session store, a fault-injecting wrapper of the memory backend (spec 02 §10
 * [unit]), and small event builders.
 */
import { Context, type Exporter, type Message } from '@deepseek-ai/cordis'
import SessionStore, { SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader, type SessionId } from '@logbook/session'
import { testApp, textsOf } from '@logbook/test-kit'
import type { LockToken, PersistenceBackend } from '../src/backend.ts'
import { SessionPersistenceConfigSchema } from '../src/config.ts'
import { SessionPersistenceError } from '../src/errors.ts'
import { MemoryBackend } from '../src/memory-backend.ts'
import { SessionPersistence } from '../src/service.ts'
import type { SessionPersistenceConfig } from '../src/types.ts'

/** A root app with `ctx.sessions` loaded and every log line captured. */
export async function makeApp(): Promise<{ app: Context; logs: Message[] }> {
  const { app, records } = testApp()
  await app.plugin(SessionStore)
  return { app, logs: records }
}

type HookName = Exclude<keyof PersistenceBackend, 'name' | 'capabilities' | 'eventState'>

/** A system-error-like `STORE_IO` (retryable). */
export function storeIo(message = 'EIO: simulated'): SessionPersistenceError {
  return new SessionPersistenceError('STORE_IO', message, { cause: Object.assign(new Error(message), { code: 'EIO' }) })
}

/**
 * Wraps a `MemoryBackend`: counts every hook call, can make the next calls of a hook fail, keep failing until
 * healed, or block until released.
 */
export class FaultyBackend implements PersistenceBackend<number, LockToken> {
  readonly inner: MemoryBackend
  readonly name = 'faulty'
  readonly capabilities = Object.freeze({ crossProcess: false, durable: false, locate: false })
  readonly eventState = 'shared-frozen' as const
  readonly calls: { hook: HookName; at: number; args: unknown[] }[] = []
  private failures = new Map<HookName, { error: () => unknown; remaining: number }>()
  private blocks = new Map<HookName, Promise<void>>()

  constructor(storeName?: string) {
    this.inner = new MemoryBackend(storeName === undefined ? {} : { storeName })
  }

  /** Make the next `count` calls (Infinity: until `heal`) of `hook` reject with a fresh `error()`. */
  fail(hook: HookName, error: () => unknown = () => storeIo(), count = Infinity): void {
    this.failures.set(hook, { error, remaining: count })
  }

  heal(hook?: HookName): void {
    if (hook === undefined) this.failures.clear()
    else this.failures.delete(hook)
  }

  /** Block `hook` until the returned function is called. */
  block(hook: HookName): () => void {
    let release!: () => void
    this.blocks.set(hook, new Promise<void>(resolve => {
      release = resolve
    }))
    return () => {
      this.blocks.delete(hook)
      release()
    }
  }

  count(hook: HookName): number {
    return this.calls.filter(call => call.hook === hook).length
  }

  private async run<T>(hook: HookName, args: unknown[], body: () => Promise<T>): Promise<T> {
    this.calls.push({ hook, at: Date.now(), args })
    const blocked = this.blocks.get(hook)
    if (blocked !== undefined) await blocked
    const failure = this.failures.get(hook)
    if (failure !== undefined && failure.remaining > 0) {
      failure.remaining -= 1
      throw failure.error()
    }
    return body()
  }

  start(signal: AbortSignal) { return this.run('start', [], () => this.inner.start()) }
  lock(id: string, owner: Parameters<MemoryBackend['lock']>[1]) { return this.run('lock', [id], () => this.inner.lock(id, owner)) }
  verifyLock(token: LockToken) { return this.run('verifyLock', [token], () => this.inner.verifyLock(token)) }
  unlock(token: LockToken) { return this.run('unlock', [token], () => this.inner.unlock(token)) }
  readLock(id: string) { return this.run('readLock', [id], () => this.inner.readLock(id)) }
  breakLock(id: string, ownerId: string | null) { return this.run('breakLock', [id], () => this.inner.breakLock(id, ownerId)) }
  exists(id: string) { return this.run('exists', [id], () => this.inner.exists(id)) }
  scan(id: string) { return this.run('scan', [id], () => this.inner.scan(id)) }
  revision(id: string) { return this.run('revision', [id], () => this.inner.revision(id)) }
  materialize(token: LockToken, header: SessionHeader, records: Parameters<MemoryBackend['materialize']>[2]) {
    return this.run('materialize', [records], () => this.inner.materialize(token, header, records))
  }
  append(token: LockToken, expect: Parameters<MemoryBackend['append']>[1], records: Parameters<MemoryBackend['append']>[2]) {
    return this.run('append', [records], () => this.inner.append(token, expect, records))
  }
  cut(token: LockToken, marker: number, expect: Parameters<MemoryBackend['cut']>[2]) {
    return this.run('cut', [marker], () => this.inner.cut(token, marker, expect))
  }
  remove(token: LockToken, revision: string) { return this.run('remove', [], () => this.inner.remove(token, revision)) }
  list(query: Parameters<MemoryBackend['list']>[0]) { return this.run('list', [query], () => this.inner.list(query)) }
  locate() { return this.run('locate', [], () => this.inner.locate()) }
  readCheckpoint(id: string) { return this.run('readCheckpoint', [id], () => this.inner.readCheckpoint(id)) }
  writeCheckpoint(token: LockToken, id: string, cp: Parameters<MemoryBackend['writeCheckpoint']>[2]) {
    return this.run('writeCheckpoint', [id], () => this.inner.writeCheckpoint(token, id, cp))
  }
  close() { return this.run('close', [], () => this.inner.close()) }
}

/** The shape of a persistence plugin class. */
export interface PersistencePlugin {
  new (ctx: Context, config: SessionPersistenceConfig): SessionPersistence
  readonly Config: typeof SessionPersistenceConfigSchema
  readonly inject: string[]
}

/** A plugin class (fresh per call) that mounts the coordinator on `backend`. */
export function pluginFor(backend: PersistenceBackend<unknown, LockToken>): PersistencePlugin {
  return class FaultyPersistence extends SessionPersistence {
    static Config = SessionPersistenceConfigSchema
    constructor(ctx: Context, config: SessionPersistenceConfig) {
      super(ctx, config, backend)
    }
  }
}

/** Every stored event of `id`, decoded from the memory store's records (valid or not). */
export async function storedEvents(backend: MemoryBackend, id: string): Promise<SessionEvent[]> {
  const scan = await backend.scan(id)
  if (scan === undefined) return []
  return scan.records.flatMap(record => (record.result.ok ? [...record.result.events] : []))
}

/** The log lines of the coordinator's logger of one type. */
export function logsOf(logs: Message[], type: Message['type']): string[] {
  return textsOf(logs, type, 'session-persistence')
}

/** A header for `create`. */
export function header(id: string, extra: Partial<SessionHeader> = {}): SessionHeader {
  return { version: SESSION_FORMAT_VERSION, id: id as SessionId, createdAt: 1000, ...extra }
}

/** A closed turn of four structural events starting at `seq`. */
export function turn(seq: number, turnNo: number, time = 2000): SessionEvent[] {
  return [
    { type: 'turn/start', seq, time, data: { turn: turnNo } },
    { type: 'step/start', seq: seq + 1, time, data: { turn: turnNo, step: 1 } },
    { type: 'step/end', seq: seq + 2, time, data: { turn: turnNo, step: 1 } },
    { type: 'turn/end', seq: seq + 3, time, data: { turn: turnNo, reason: { kind: 'completed' } } },
  ] as SessionEvent[]
}
