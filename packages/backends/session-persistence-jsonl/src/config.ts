/**
 * Config of the JSONL backend (02 §1.5): the shared persistence fields plus `root` and `durability`, with their
 * defaults declared here once, and how a relative `root` resolves (against the config file's folder, 03 §7).
 */
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import { persistenceConfigFields, withRetryBounds } from '@logbook/session-persistence'
import type { JsonlSessionPersistenceConfig } from './types.ts'

/** Config schema (02 §1.5): the shared keys plus `root` (default `.logbook`) and `durability` (default `fsync`). */
export const JsonlConfigSchema: Schema<Partial<JsonlSessionPersistenceConfig>, JsonlSessionPersistenceConfig> = withRetryBounds(
  Schema.object({
    ...persistenceConfigFields(),
    root: Schema.string().default('.logbook')
      .description('Store root; a relative path resolves against the config file folder (ctx.baseUrl), else the working directory.'),
    durability: Schema.union(['fsync', 'none'] as const).default('fsync')
      .description('fsync: fdatasync per batch and directory fsync on new entries. none: no fsync (tests only).'),
  }) as unknown as Schema<Partial<JsonlSessionPersistenceConfig>, JsonlSessionPersistenceConfig>,
)

/**
 * The directory relative paths resolve against: `ctx.baseUrl` (a `file:` URL or a path, set by the loader's
 * include to the config file's folder), else `process.cwd()` (03 §7).
 */
export function baseDirOf(ctx: Context): string {
  const base = (ctx as { baseUrl?: string }).baseUrl
  if (typeof base !== 'string' || base === '') return process.cwd()
  if (base.startsWith('file:')) {
    const path = fileURLToPath(base)
    // A base URL names a folder when it ends with a slash, else the file inside it.
    return base.endsWith('/') ? path : resolve(path, '..')
  }
  return isAbsolute(base) ? base : resolve(process.cwd(), base)
}
