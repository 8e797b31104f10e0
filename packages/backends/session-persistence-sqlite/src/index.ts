/**
 * `@logbook/session-persistence-sqlite` (spec 02 §6): every session in one SQLite database through better-sqlite3.
 * The default export is the Cordis plugin `SqliteSessionPersistence` (`ctx.sessionPersistence`); the coordinator
 * of `@logbook/session-persistence` drives the `SqliteBackend` hooks.
 */

import type { Context } from '@deepseek-ai/cordis'
import { SessionPersistence } from '@logbook/session-persistence'
import { SqliteBackend } from './backend.ts'
import { resolveStorePath, SqliteConfigSchema } from './config.ts'
import type { CommitState, SqliteSessionPersistenceConfig } from './types.ts'

export type { CommitState, SqliteSessionPersistenceConfig } from './types.ts'

/**
 * `ctx.sessionPersistence` backed by one SQLite database (`config.path`, WAL, `synchronous=FULL` by default).
 * Starting validates the store without creating the file; the first write creates it (0600) with the schema.
 * @throws (at plugin start) `STORE_UNSAFE`, `STORE_FOREIGN`, `STORE_INCOMPATIBLE`, `STORE_IO`; invalid config fails
 * with Cordis's `ValidationError`.
 */
export default class SqliteSessionPersistence extends SessionPersistence<SqliteSessionPersistenceConfig> {
  static Config = SqliteConfigSchema

  /** The hooks, for the invariant companion's one read-only query. */
  private readonly sqliteBackend: SqliteBackend

  constructor(ctx: Context, config: SqliteSessionPersistenceConfig) {
    const backend = new SqliteBackend({
      path: resolveStorePath(config.path, ctx.baseUrl),
      synchronous: config.synchronous,
      journalMode: config.journalMode,
      busyTimeoutMs: config.busyTimeoutMs,
      checkPermissions: config.checkPermissions,
    })
    super(ctx, config, backend)
    this.sqliteBackend = backend
  }

  /**
   * The stored `next_seq`, `revision` column and lease owner of `id` in one read-only query, or `undefined` when the
   * session is not stored (what the invariant companion checks after each commit, 02 §8).
   * @throws `STORE_IO` when the database cannot be read.
   */
  commitState(id: string): CommitState | undefined {
    return this.sqliteBackend.commitState(id)
  }

  /**
   * How many write transactions this instance has committed since it started: every hook that writes commits once,
   * and the `append`/`materialize` batches of sessions flushing together commit once as a group (02 §6).
   */
  get commits(): number {
    return this.sqliteBackend.commits
  }
}
