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

/** Every statement name; each is a file `resources/sql/<name>.sql`. */
export type StatementName =
  | (typeof SCHEMA_STATEMENTS)[number]
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
  | 'select-event-before'
  | 'delete-events-from'
  | 'select-lease'
  | 'insert-lease'
  | 'delete-lease'
  | 'select-checkpoint'
  | 'upsert-checkpoint'
  | 'delete-checkpoint-from'
  | 'list-sessions'
  | 'select-commit-state'
  | 'count-events'
  | 'select-schema-version'
  | 'begin-immediate'
  | 'begin-deferred'
  | 'commit'
  | 'rollback'

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
