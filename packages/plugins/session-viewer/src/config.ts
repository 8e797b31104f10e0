/** The viewer's config, with its defaults declared once, here. */
import Schema from '@deepseek-ai/schemastery'
import type { SessionViewerConfig } from './types.ts'

/**
 * `port` (0–65535, default 0: any free port), `turnsPerPage` (1–1000, 50), `pollIntervalMs` (50–10,000, 250),
 * `cachedSessions` (1–64, 4), `listLimit` (1–500, 50), `searchLimit` (1–500, 50), `originalsShown` (1–10,000, 200).
 * The server always listens on 127.0.0.1. An invalid value fails the plugin with Cordis's `ValidationError`.
 */
export const SessionViewerConfigSchema: Schema<Partial<SessionViewerConfig>, SessionViewerConfig> = Schema.object({
  port: Schema.natural().max(65535).default(0).description('TCP port on 127.0.0.1; 0 picks a free one.'),
  turnsPerPage: Schema.natural().min(1).max(1000).default(50).description('Turns per page of a session.'),
  pollIntervalMs: Schema.natural().min(50).max(10_000).default(250).description('How often an open session page reads its session from its next seq.'),
  cachedSessions: Schema.natural().min(1).max(64).default(4).description('Sessions held in memory for rendering (least recently used dropped).'),
  listLimit: Schema.natural().min(1).max(500).default(50).description('Sessions per page of the list.'),
  searchLimit: Schema.natural().min(1).max(500).default(50).description('Search hits shown.'),
  originalsShown: Schema.natural().min(1).max(10_000).default(200).description('Replaced originals listed inside one compaction.'),
}) as unknown as Schema<Partial<SessionViewerConfig>, SessionViewerConfig>

/** The config with every default. */
export const DEFAULT_VIEWER_CONFIG: SessionViewerConfig = Object.freeze(SessionViewerConfigSchema({}))
