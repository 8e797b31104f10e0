/**
 * Where the index file lives (spec 04 §1.3): `config.path` when given; else beside the store the persistence
 * service reports (`storeLocation`): `<root>/.search-index.sqlite` in a JSONL root (a reserved dot name the backend
 * ignores), `<name>.search.sqlite` next to a SQLite database file `<name>.sqlite`; in memory for a backend that is
 * not durable (memory, `:memory:`). A durable backend without a local location needs an explicit path.
 */
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SessionPersistence } from '@logbook/session-persistence'
import { SessionSearchError } from './errors.ts'
import { MEMORY } from './store.ts'

/** The index file name inside a store folder. */
export const INDEX_FILE_IN_FOLDER = '.search-index.sqlite'

/** The folder relative paths resolve against: the folder of `baseUrl` (a `file:` URL or a path), else the cwd. */
function baseFolder(baseUrl: string | undefined): string {
  if (baseUrl === undefined || baseUrl === '') return process.cwd()
  if (baseUrl.startsWith('file:')) return fileURLToPath(new URL('.', baseUrl))
  return isAbsolute(baseUrl) ? baseUrl : resolve(process.cwd(), baseUrl)
}

/** The index path beside a SQLite database file: its name without `.sqlite`/`.sqlite3`/`.db`, plus `.search.sqlite`. */
export function indexBesideFile(file: string): string {
  const ext = extname(file)
  const stem = ['.sqlite', '.sqlite3', '.db'].includes(ext.toLowerCase()) ? basename(file, ext) : basename(file)
  return join(dirname(file), `${stem}.search.sqlite`)
}

/**
 * The absolute index path (or `:memory:`).
 * @throws SessionSearchError `INDEX_PATH_REQUIRED` for a durable backend that reports no location and no `path`.
 */
export function indexPath(configured: string | undefined, baseUrl: string | undefined, persistence: SessionPersistence): string {
  if (configured !== undefined) return configured === MEMORY ? MEMORY : resolve(baseFolder(baseUrl), configured)
  const location = persistence.storeLocation
  if (location !== undefined) return location.kind === 'directory' ? join(location.path, INDEX_FILE_IN_FOLDER) : indexBesideFile(location.path)
  if (!persistence.capabilities.durable) return MEMORY
  throw new SessionSearchError('INDEX_PATH_REQUIRED',
    `session search needs an index path: persistence backend "${persistence.backendName}" has no local store location (set path in the session-search config)`)
}
