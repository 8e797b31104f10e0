/**
 * Config schema of the SQLite backend (02 §1.5): the shared persistence fields plus `path`, `synchronous`,
 * `journalMode`, `busyTimeoutMs` and `checkPermissions`. Defaults are declared here, once.
 */
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import Schema from '@deepseek-ai/schemastery'
import { persistenceConfigFields, withRetryBounds } from '@logbook/session-persistence'
import type { SqliteSessionPersistenceConfig } from './types.ts'

/** The validated config of `SqliteSessionPersistence`; invalid config fails the plugin with a `ValidationError`. */
export const SqliteConfigSchema: Schema<Partial<SqliteSessionPersistenceConfig>, SqliteSessionPersistenceConfig> =
  withRetryBounds(Schema.object({
    ...persistenceConfigFields(),
    path: Schema.string().default('.logbook/logbook.sqlite')
      .description("Database file; relative paths resolve against the config file's folder (else the cwd); ':memory:' allowed."),
    synchronous: Schema.union(['full', 'normal'] as const).default('full')
      .description("PRAGMA synchronous: 'full' survives power loss, 'normal' only process crashes (WAL)."),
    journalMode: Schema.union(['wal', 'delete'] as const).default('wal').description('PRAGMA journal_mode.'),
    busyTimeoutMs: Schema.natural().min(0).max(60_000).default(5000)
      .description('How long a write waits for another connection before failing STORE_IO (ms).'),
    checkPermissions: Schema.boolean().default(true)
      .description('Refuse a database file or directory that other users could read, write or redirect.'),
  }) as unknown as Schema<Partial<SqliteSessionPersistenceConfig>, SqliteSessionPersistenceConfig>)

/**
 * The absolute database path for `configured`: `':memory:'` as is; a relative path against `baseUrl` (the folder of a
 * `file:` URL, as Cordis's include sets it, or a directory path) or, without one, `process.cwd()`.
 */
export function resolveStorePath(configured: string, baseUrl: string | undefined): string {
  if (configured === ':memory:' || isAbsolute(configured)) return configured
  if (baseUrl === undefined || baseUrl === '') return resolve(process.cwd(), configured)
  const folder = baseUrl.startsWith('file:') ? fileURLToPath(new URL('.', baseUrl)) : baseUrl
  return resolve(folder, configured)
}
