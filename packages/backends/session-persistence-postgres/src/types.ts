/**
 * Types of the PostgreSQL backend. Types only.
 */
import type { SessionPersistenceConfig } from '@logbook/session-persistence'

/** TLS settings handed to node-postgres (`ssl`): `true` verifies the server against the system CAs. */
export type PostgresSslConfig = boolean | { readonly rejectUnauthorized: boolean; readonly ca?: string }

/** Config of `PostgresSessionPersistence` (02 §1.5, §6b): the shared keys plus the server and lease settings. */
export interface PostgresSessionPersistenceConfig extends SessionPersistenceConfig {
  /** `postgresql://user:password@host:port/database`; `!!js process.env.DATABASE_URL` in a `cordis.yml`. */
  readonly connectionString: string
  /** The PostgreSQL schema holding the five `logbook_*` tables (created at start when absent). */
  readonly schema: string
  /** Most pooled connections of this instance. */
  readonly poolSize: number
  /** `statement_timeout` of every connection (ms); 0 disables it. */
  readonly statementTimeoutMs: number
  /** How long a connection attempt may take before the operation fails `STORE_IO` (ms). */
  readonly connectTimeoutMs: number
  /** How long a write lease lasts without renewal (ms); the holder renews it every third of that. */
  readonly leaseDurationMs: number
  readonly ssl: PostgresSslConfig
}

/** What the invariant companion reads after a commit (one query). */
export interface CommitState {
  readonly nextSeq: number
  /** The `revision` column (the token's last part). */
  readonly revision: number
  /** Owner id of the lease row, `null` without one. */
  readonly ownerId: string | null
}
