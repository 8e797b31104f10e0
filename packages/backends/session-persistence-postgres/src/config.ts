/**
 * Config schema of the PostgreSQL backend (02 §1.5): the shared persistence fields plus the server, pool, timeout,
 * lease and TLS settings. Defaults are declared here, once. A bad row fails the plugin with a `ValidationError`.
 */
import Schema from '@deepseek-ai/schemastery'
import { persistenceConfigFields, withRetryBounds } from '@logbook/session-persistence'
import type { PostgresSessionPersistenceConfig } from './types.ts'

/** A lower-case SQL identifier (quoted anyway), at most 63 bytes as PostgreSQL allows. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

const SslSchema = Schema.union([
  Schema.boolean(),
  Schema.object({
    rejectUnauthorized: Schema.boolean().default(true).description('Refuse a server certificate that does not verify.'),
    ca: Schema.string().description('PEM text of the CA that signed the server certificate.'),
  }),
]).default(false).description('TLS to the server: false, true (verify against the system CAs), or { rejectUnauthorized, ca }.')

/** The validated config of `PostgresSessionPersistence`. */
export const PostgresConfigSchema: Schema<Partial<PostgresSessionPersistenceConfig>, PostgresSessionPersistenceConfig> =
  withRetryBounds(Schema.object({
    ...persistenceConfigFields(),
    connectionString: Schema.string().pattern(/^postgres(ql)?:\/\//).required()
      .description('postgresql://user:password@host:port/database (e.g. !!js process.env.DATABASE_URL).'),
    schema: Schema.string().pattern(SCHEMA_NAME).default('logbook')
      .description('The PostgreSQL schema of the logbook_* tables; created at start when absent.'),
    poolSize: Schema.natural().min(1).max(100).default(10).description('Most pooled connections of this instance.'),
    statementTimeoutMs: Schema.natural().min(0).max(600_000).default(30_000)
      .description('statement_timeout of every connection (ms); 0 disables it.'),
    connectTimeoutMs: Schema.natural().min(100).max(600_000).default(10_000)
      .description('How long a connection attempt may take (ms).'),
    leaseDurationMs: Schema.natural().min(1000).max(3_600_000).default(30_000)
      .description('How long a write lease lasts without renewal (ms); renewed every third of it.'),
    ssl: SslSchema,
  }) as unknown as Schema<Partial<PostgresSessionPersistenceConfig>, PostgresSessionPersistenceConfig>)
