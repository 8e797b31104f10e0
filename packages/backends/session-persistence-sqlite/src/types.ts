/**
 * Types of the SQLite backend. Types only.
 */
import type { SessionPersistenceConfig } from '@logbook/session-persistence'

/** Config of `SqliteSessionPersistence` (02 §1.5): the shared keys plus the database and connection settings. */
export interface SqliteSessionPersistenceConfig extends SessionPersistenceConfig {
  /** Database file; a relative path resolves against `ctx.baseUrl` (else `process.cwd()`) at start; `':memory:'` allowed. */
  readonly path: string
  /** `PRAGMA synchronous`: `'full'` (FULL, 2) survives power loss; `'normal'` (NORMAL, 1) only process crashes in WAL. */
  readonly synchronous: 'full' | 'normal'
  /** `PRAGMA journal_mode`. */
  readonly journalMode: 'wal' | 'delete'
  /** `PRAGMA busy_timeout` and better-sqlite3's `timeout`: how long a write waits for another connection (ms). */
  readonly busyTimeoutMs: number
  /** Refuse a database file or directory that other users could read, write or redirect (02 §6 "File checks"). */
  readonly checkPermissions: boolean
}

/** What the invariant companion reads after a commit: one row of `select-commit-state.sql`. */
export interface CommitState {
  readonly nextSeq: number
  /** The `revision` column (an integer; the token's last part). */
  readonly revision: number
  /** Owner id of the lease row, `null` without one. */
  readonly ownerId: string | null
}
