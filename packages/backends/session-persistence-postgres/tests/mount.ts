/** A mounted app for the backend's own tests: `@logbook/session` plus the PostgreSQL backend, disposed by `stop()`. */
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import PostgresSessionPersistence from '../src/index.ts'
import type { SessionEvent } from '@logbook/session'
import { header } from './events.ts'

/** One app over a store. */
export interface Mounted {
  readonly app: Context
  readonly persistence: SessionPersistence & PostgresSessionPersistence
  readonly sessions: SessionStore
  /** create(id) + append(events) + close. */
  store(id: string, events: readonly SessionEvent[]): Promise<void>
  stop(): Promise<void>
}

/** Mount the backend with `config` (short write-behind and retry timings unless overridden). */
export async function mountPostgres(config: Record<string, unknown>): Promise<Mounted> {
  const app = new Context()
  app.logger.exporter({ levels: { default: 1 }, export: () => {} })
  const store = app.plugin(SessionStore)
  await store
  const backend = app.plugin(PostgresSessionPersistence, { writeBatchMaxDelayMs: 10, retryInitialDelayMs: 10, retryMaxDelayMs: 20, ...config } as never)
  await backend
  const persistence = app.get('sessionPersistence') as Mounted['persistence']
  return {
    app,
    persistence,
    sessions: app.get('sessions') as SessionStore,
    async store(id, events) {
      const handle = await persistence.create(header(id))
      try {
        if (events.length > 0) await handle.append(events)
      } finally {
        await handle.close()
      }
    },
    async stop() {
      await backend.dispose()
      await store.dispose()
    },
  }
}
