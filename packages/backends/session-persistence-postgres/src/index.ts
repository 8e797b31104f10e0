/**
 * `@logbook/session-persistence-postgres` (spec 02 §6b): sessions shared by many hosts in one PostgreSQL schema
 * through node-postgres. The default export is the Cordis plugin `PostgresSessionPersistence`
 * (`ctx.sessionPersistence`); the coordinator of `@logbook/session-persistence` drives the `PostgresBackend` hooks.
 */
import type { Context } from '@deepseek-ai/cordis'
import { SessionPersistence } from '@logbook/session-persistence'
import { PostgresBackend } from './backend.ts'
import { PostgresConfigSchema } from './config.ts'
import type { CommitState, PostgresSessionPersistenceConfig } from './types.ts'

export { PostgresBackend } from './backend.ts'
export { PostgresConfigSchema } from './config.ts'
export { LOGBOOK_PG_SCHEMA_VERSION } from './schema.ts'
export type { CommitState, PostgresSessionPersistenceConfig, PostgresSslConfig } from './types.ts'

/**
 * `ctx.sessionPersistence` backed by PostgreSQL: one pool per instance, a write lease per session with fencing on
 * every write, so one host at a time writes a session. Starting creates or checks the versioned schema.
 * @throws (at plugin start) `STORE_IO` (server unreachable: one line naming host and cause), `STORE_FOREIGN`,
 * `STORE_INCOMPATIBLE`; invalid config fails with Cordis's `ValidationError`.
 */
export default class PostgresSessionPersistence extends SessionPersistence<PostgresSessionPersistenceConfig> {
  static Config = PostgresConfigSchema

  /** @internal The hooks, for the invariant companion's query. */
  readonly postgresBackend: PostgresBackend

  constructor(ctx: Context, config: PostgresSessionPersistenceConfig) {
    const backend = new PostgresBackend({
      connectionString: config.connectionString,
      schema: config.schema,
      poolSize: config.poolSize,
      statementTimeoutMs: config.statementTimeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
      ssl: config.ssl,
      leaseDurationMs: config.leaseDurationMs,
    })
    super(ctx, config, backend)
    this.postgresBackend = backend
  }

  /**
   * The stored `next_seq`, `revision` column and lease owner of `id` in one query, or `undefined` when not stored
   * (what the invariant companion checks after each commit).
   * @throws `STORE_IO` when the server cannot be read.
   */
  commitState(id: string): Promise<CommitState | undefined> {
    return this.postgresBackend.commitState(id)
  }
}
