/** The plugin config (spec 04 §1.2), with its defaults declared once, here. */
import Schema from '@deepseek-ai/schemastery'
import type { SessionSearchConfig } from './types.ts'

/**
 * Every key of `SessionSearchConfig` with its documented default; an invalid value fails the plugin with
 * `ValidationError` naming the path.
 */
export const SessionSearchConfigSchema: Schema<Partial<SessionSearchConfig>, SessionSearchConfig> = Schema.object({
  path: Schema.string().min(1)
    .description("Index file; relative paths resolve against the config file's folder (else the cwd); ':memory:' keeps it in memory. Default: beside the store."),
  indexDelayMs: Schema.natural().max(60_000).default(200)
    .description('Live events are indexed in batches, at most this long after they were appended (ms).'),
  retryDelayMs: Schema.natural().min(10).max(600_000).default(5000)
    .description('After a failed live indexing step, the session is reindexed this long later, or at the next query (ms).'),
  reconcileIntervalMs: Schema.natural().max(3_600_000).default(1000)
    .description('A query compares the store with the index at most this often (ms); 0 compares before every query.'),
  busyTimeoutMs: Schema.natural().max(60_000).default(5000)
    .description('How long an index write waits for another process holding the index (ms).'),
  sliceEvents: Schema.natural().min(100).max(1_000_000).default(10_000)
    .description('Events indexed per transaction; between slices the process serves other work.'),
  defaultLimit: Schema.natural().min(1).max(500).default(20).description('Hits a query returns without a limit.'),
  snippetTokens: Schema.natural().min(4).max(64).default(12).description('Words (or 3 × characters for substring matches) per snippet.'),
}) as unknown as Schema<Partial<SessionSearchConfig>, SessionSearchConfig>
