/**
 * `@logbook/session-persistence-jsonl` (spec 02 §5): session persistence in one append-only JSONL file per session,
 * with cross-process lock files. The default export is the Cordis plugin providing `ctx.sessionPersistence`.
 */
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import { persistenceConfigFields, SessionPersistence, withRetryBounds } from '@logbook/session-persistence'
import { JsonlBackend } from './jsonl-backend.ts'
import type { JsonlSessionPersistenceConfig } from './types.ts'

export type { JsonlLockToken, JsonlSessionPersistenceConfig } from './types.ts'
export { JsonlBackend } from './jsonl-backend.ts'
export { encodeId, projectKey } from './paths.ts'

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

/**
 * `ctx.sessionPersistence` backed by JSONL files under `root`. Resolves the root once, at start; validates the
 * store without creating anything (a failure fails the plugin with `STORE_UNSAFE` / `STORE_FOREIGN` /
 * `STORE_INCOMPATIBLE`).
 */
export default class JsonlSessionPersistence extends SessionPersistence<JsonlSessionPersistenceConfig> {
  static Config = JsonlConfigSchema

  /** The absolute store root this instance uses. */
  readonly root: string

  constructor(ctx: Context, config: JsonlSessionPersistenceConfig) {
    const root = resolve(baseDirOf(ctx), config.root)
    super(ctx, config, new JsonlBackend(root, config.durability))
    this.root = root
  }
}
