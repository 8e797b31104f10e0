/**
 * The SQL of the backend: every statement lives in `resources/sql/<name>.sql`, one named statement per file (02 §6).
 * Files are read once, at first use; `resources/` sits beside both `src/` and `dist/`, so one relative URL serves both.
 */

import { readFileSync } from 'node:fs'

/** The DDL statements whose stored SQL forms the reference schema, in creation order. */
export const SCHEMA_STATEMENTS = [
  'create-table-store',
  'create-table-sessions',
  'create-table-events',
  'create-table-leases',
  'create-table-checkpoints',
  'create-index-sessions-by-update',
  'create-index-sessions-by-parent',
  'create-index-sessions-by-cwd',
] as const

/**
 * The steps from schema version 1 to 2 (checksums): a `crc` column on the header and event rows. A new store runs
 * the version-1 DDL and then the steps of each later version, so every store of one version has the same stored
 * schema text.
 */
export const MIGRATION_V2_STATEMENTS = ['migrate-v2-sessions-crc', 'migrate-v2-events-crc'] as const

/**
 * The steps from schema version 2 to 3: `logbook_events` becomes a rowid table (rows in insertion order) with a unique
 * index on `(session_id, seq)`, so a commit carrying many sessions' batches dirties the few pages at the table's end
 * instead of one leaf per session. The rows are copied as they are, in `(session_id, seq)` order.
 */
export const MIGRATION_V3_STATEMENTS = [
  'migrate-v3-events-rename',
  'migrate-v3-events-create',
  'migrate-v3-events-copy',
  'migrate-v3-events-drop',
  'migrate-v3-events-index',
] as const

/** The statements whose version-2 form (`<name>-v2`, used from version 2 on) reads or writes the `crc` columns. */
const VERSIONED = new Set<string>(['select-session', 'list-sessions', 'list-sessions-after', 'select-events-from', 'select-events-page', 'select-event-before', 'insert-session', 'insert-event'])

/** Statement `name` as the schema of `version` needs it: the `-v2` file where the crc columns matter. */
export function versioned(name: StatementName, version: number): StatementName {
  return version >= 2 && VERSIONED.has(name) ? `${name}-v2` as StatementName : name
}

/** Every statement name; each is a file `resources/sql/<name>.sql`. */
export type StatementName =
  | (typeof SCHEMA_STATEMENTS)[number]
  | (typeof MIGRATION_V2_STATEMENTS)[number]
  | (typeof MIGRATION_V3_STATEMENTS)[number]
  | 'select-session-v2'
  | 'list-sessions-v2'
  | 'list-sessions-after-v2'
  | 'select-events-from-v2'
  | 'select-events-page-v2'
  | 'select-event-before-v2'
  | 'insert-session-v2'
  | 'insert-event-v2'
  | 'update-session-crc'
  | 'update-event-crc'
  | 'select-session-ids'
  | 'select-leases'
  | 'vacuum-into'
  | 'select-schema-objects'
  | 'count-schema-objects'
  | 'select-store'
  | 'insert-store'
  | 'select-session'
  | 'insert-session'
  | 'update-session-cursor'
  | 'delete-session'
  | 'insert-event'
  | 'select-events-from'
  | 'select-events-page'
  | 'select-event-before'
  | 'delete-events-from'
  | 'select-lease'
  | 'insert-lease'
  | 'delete-lease'
  | 'select-checkpoint'
  | 'upsert-checkpoint'
  | 'delete-checkpoint-from'
  | 'list-sessions'
  | 'list-sessions-after'
  | 'select-commit-state'
  | 'select-append-state'
  | 'count-events'
  | 'select-schema-version'
  | 'begin-immediate'
  | 'begin-deferred'
  | 'commit'
  | 'rollback'
  | 'savepoint'
  | 'release-savepoint'
  | 'rollback-to-savepoint'

const cache = new Map<StatementName, string>()

/** The text of statement `name`, trimmed, read from the package's `resources/sql` directory. */
export function sql(name: StatementName): string {
  let text = cache.get(name)
  if (text === undefined) {
    text = readFileSync(new URL(`../resources/sql/${name}.sql`, import.meta.url), 'utf8').trim()
    cache.set(name, text)
  }
  return text
}

/**
 * Whitespace-normalised SQL: runs of whitespace become one space and spaces beside `(`, `)` and `,` vanish, so the
 * stored schema compares equal to the reference however it was indented.
 */
export function normaliseSql(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),])\s*/g, '$1')
    .trim()
}
