/**
 * `@logbook/session-persistence-jsonl` (spec 02 §5): session persistence in one append-only JSONL file per session,
 * with cross-process lock files. The default export is the Cordis plugin providing `ctx.sessionPersistence`.
 */
import { resolve } from 'node:path'
import type { Context } from '@deepseek-ai/cordis'
import { SessionPersistence } from '@logbook/session-persistence'
import { JsonlBackend } from './backend.ts'
import { baseDirOf, JsonlConfigSchema } from './config.ts'
import type { JsonlSessionPersistenceConfig } from './types.ts'

export type { JsonlSessionPersistenceConfig } from './types.ts'
export { sessionOfFile } from './layout.ts'

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
