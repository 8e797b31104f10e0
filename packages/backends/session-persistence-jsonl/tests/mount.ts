/** Mounting `@logbook/session` and the JSONL plugin in a fresh Context, for this package's tests. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type Fiber } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import type { PersistenceCommittedEvent, SessionPersistence } from '@logbook/session-persistence'
import JsonlSessionPersistence from '../src/index.ts'

/** A fresh temp directory holding `store/` (not created) as the root. */
export async function tempRoot(): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'logbook-jsonl-t-'))
  return { root: join(dir, 'store'), cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** One app with `sessions` and the JSONL backend. */
export class JsonlApp {
  /** Every `persistence/committed` payload, in order. */
  readonly committed: PersistenceCommittedEvent[] = []
  /** Every error-level log line. */
  readonly errors: string[] = []
  private store: Fiber | undefined
  private backend: Fiber | undefined

  private constructor(readonly app: Context) {
    app.logger.exporter({
      levels: { default: 3 },
      export: (m) => {
        if (m.type === 'error') this.errors.push(m.args.map(String).join(' '))
      },
    })
    app.on('persistence/committed', (event) => {
      this.committed.push(event)
    })
  }

  /** Mounts with `root` and `config` (short windows and durability `none` unless overridden). */
  static async start(root: string, config: Record<string, unknown> = {}): Promise<JsonlApp> {
    const mounted = new JsonlApp(new Context())
    mounted.store = mounted.app.plugin(SessionStore)
    await mounted.store
    mounted.backend = mounted.app.plugin(JsonlSessionPersistence, {
      root, durability: 'none', writeBatchMaxDelayMs: 10, retryInitialDelayMs: 10, retryMaxDelayMs: 20, ...config,
    })
    await mounted.backend
    return mounted
  }

  get persistence(): SessionPersistence {
    return this.app.get('sessionPersistence') as SessionPersistence
  }

  get sessions(): SessionStore {
    return this.app.get('sessions') as SessionStore
  }

  /** The backend plugin's fiber (`state` 2 active, 3 failed). */
  get backendFiber(): Fiber {
    return this.backend as Fiber
  }

  async stop(): Promise<void> {
    await this.backend?.dispose()
    await this.store?.dispose()
  }
}
