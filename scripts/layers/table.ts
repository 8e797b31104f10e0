/**
 * The dependency layers of `packages/`, bottom to top. A package may use packages of lower layers; inside one folder
 * it may use only the siblings listed in `SIBLINGS`. `check.ts` enforces this table in `pnpm test`.
 */
export const LAYERS = ['core', 'seams', 'backends', 'loop', 'plugins', 'cli'] as const

export type Layer = (typeof LAYERS)[number]

/** Allowed dependencies between packages of one folder, as `folder/package` → the siblings it may use. */
export const SIBLINGS: Readonly<Record<string, readonly string[]>> = {
  // The contract suite tests backends of the seam.
  'seams/session-persistence-conformance': ['seams/session-persistence'],
  'plugins/compaction-basic': ['plugins/compaction'],
  // Imports write compactions with the compaction plugin's own events and checkpoint, and titles as session/title.
  'plugins/session-interop': ['plugins/compaction', 'plugins/session-projection'],
  // Hits carry the session's title: the search fold runs the title projection unit.
  'plugins/session-search': ['plugins/session-projection'],
  // The viewer renders the built-in title and compaction brackets with their own folds and checkpoint test, and
  // its search box calls the search service.
  'plugins/session-viewer': ['plugins/session-projection', 'plugins/compaction', 'plugins/session-search'],
}

/** Siblings a package's `tests/` may use on top of `SIBLINGS` (its `src/` may not). */
export const TEST_SIBLINGS: Readonly<Record<string, readonly string[]>> = {
  // The seam's own memory backend runs the contract suite.
  'seams/session-persistence': ['seams/session-persistence-conformance'],
  // The test kit depends on Cordis only, so the session core's tests may use it too.
  'core/session': ['core/test-kit'],
}
