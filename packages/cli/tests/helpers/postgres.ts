/**
 * PostgreSQL for the CLI tests: a database of this test file's own on the run's throwaway server (dropped after the
 * file), fresh schema names, and `cordis.yml` files for a store. Reuses the backend package's test fixtures.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freshSchema, sql, useTestDatabase } from '../../../backends/session-persistence-postgres/tests/fixture.ts'

export { freshSchema, sql, useTestDatabase }

/** Where a store for a test lives. */
export type StoreSpec =
  | { readonly kind: 'jsonl'; readonly root: string }
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string }

/** The persistence row of `store`. */
export function persistenceRow(store: StoreSpec): string {
  switch (store.kind) {
    case 'jsonl':
      return `- { id: persistence, name: '@logbook/session-persistence-jsonl', config: { root: ${JSON.stringify(store.root)} } }`
    case 'sqlite':
      return `- { id: persistence, name: '@logbook/session-persistence-sqlite', config: { path: ${JSON.stringify(store.path)} } }`
    case 'postgres':
      return `- { id: persistence, name: '@logbook/session-persistence-postgres', config: { connectionString: ${JSON.stringify(store.url)}, schema: ${store.schema} } }`
  }
}

/** Write `<dir>/<name>.yml`: the session store and the persistence row of `store`. */
export function storeConfig(dir: string, name: string, store: StoreSpec): string {
  const file = join(dir, `${name}.yml`)
  writeFileSync(file, `- { id: session, name: '@logbook/session' }\n${persistenceRow(store)}\n`)
  return file
}
