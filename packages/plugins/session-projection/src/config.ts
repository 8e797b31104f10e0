/** The plugin config (03 §1.2), with its defaults declared once, here. */
import Schema from '@deepseek-ai/schemastery'
import type { SessionProjectionConfig } from './types.ts'

/**
 * `builtins.{stats,todos,title}` (each default `true`), `checkpoint.enabled` (default `true`) and
 * `checkpoint.everyEvents` (integer ≥ 1, default 1000). An invalid value fails the plugin with `ValidationError`.
 */
export const SessionProjectionConfigSchema: Schema<Partial<SessionProjectionConfig>, SessionProjectionConfig> = Schema.object({
  builtins: Schema.object({
    stats: Schema.boolean().default(true).description('Register the built-in `stats` unit.'),
    todos: Schema.boolean().default(true).description('Register the built-in `todos` unit.'),
    title: Schema.boolean().default(true).description('Register the built-in `title` unit.'),
  }),
  checkpoint: Schema.object({
    enabled: Schema.boolean().default(true).description('Write projection checkpoints of live sessions when persistence is loaded.'),
    everyEvents: Schema.natural().min(1).default(1000)
      .description('Also checkpoint after this many state-changing events since the last trigger.'),
  }),
}) as unknown as Schema<Partial<SessionProjectionConfig>, SessionProjectionConfig>
