/**
 * The store identity file `<root>/.logbook-store.json` (`{ format: 'logbook-jsonl', layout: 1, storeId }`): read
 * and classified without creating anything, and created atomically (temp + link) by the first lock acquisition.
 */
import { randomUUID } from 'node:crypto'
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { publishNewFile } from './durable-fs.ts'
import { errnoCode, type Durability } from './io.ts'
import { isReservedName, SESSION_FILE, type StoreLayout } from './layout.ts'

/** The store format name this backend writes. */
export const STORE_FORMAT = 'logbook-jsonl'
/** The store layout version this backend reads and writes. */
export const STORE_LAYOUT = 1

/** Classification of a store root; `problem` values map to STORE_* errors in the backend. */
export type StoreState =
  | { readonly kind: 'missing-root' }
  | { readonly kind: 'not-a-directory' }
  | { readonly kind: 'pristine' }
  | { readonly kind: 'ready'; readonly storeId: string }
  | { readonly kind: 'foreign'; readonly detail: string }
  | { readonly kind: 'incompatible'; readonly detail: string; readonly direction: 'newer' | 'older' | null }

/** Parses the identity file's text into a state (`ready`, `foreign` or `incompatible`). */
export function classifyStoreFile(text: string): StoreState {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { kind: 'foreign', detail: 'store file is not JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'foreign', detail: 'store file is not a JSON object' }
  }
  const { format, layout, storeId } = value as Record<string, unknown>
  if (format !== STORE_FORMAT) return { kind: 'foreign', detail: `store format is ${JSON.stringify(format)}, not "${STORE_FORMAT}"` }
  if (layout !== STORE_LAYOUT) {
    const direction = typeof layout === 'number' ? (layout > STORE_LAYOUT ? 'newer' : 'older') : null
    return { kind: 'incompatible', detail: `store layout is ${JSON.stringify(layout)}, this build reads ${STORE_LAYOUT}`, direction }
  }
  if (typeof storeId !== 'string' || storeId === '') return { kind: 'foreign', detail: 'store file has no storeId' }
  return { kind: 'ready', storeId }
}

/**
 * Reads the state of the root without creating anything. A root without identity file is `pristine` unless it
 * already holds session files (then `incompatible`).
 */
export async function readStoreState(layout: StoreLayout): Promise<StoreState> {
  try {
    const info = await stat(layout.root)
    if (!info.isDirectory()) return { kind: 'not-a-directory' }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { kind: 'missing-root' }
    throw error
  }
  const text = await readStoreFile(layout)
  if (text !== undefined) return classifyStoreFile(text)
  if (!(await holdsSessionFiles(layout))) return { kind: 'pristine' }
  // A writer publishes the identity file before its first session file, so session files seen after a missing
  // identity file may be another process's that published it in between: read it once more before refusing.
  const late = await readStoreFile(layout)
  if (late !== undefined) return classifyStoreFile(late)
  return { kind: 'incompatible', detail: `session files without ${layout.storeFile}`, direction: null }
}

/** The identity file's text, or `undefined` when it does not exist. */
async function readStoreFile(layout: StoreLayout): Promise<string | undefined> {
  try {
    return await readFile(layout.storeFile, 'utf8')
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined
    throw error
  }
}

async function holdsSessionFiles(layout: StoreLayout): Promise<boolean> {
  for (const project of await readdir(layout.root, { withFileTypes: true })) {
    if (!project.isDirectory() || isReservedName(project.name)) continue
    let sessions
    try {
      sessions = await readdir(join(layout.root, project.name), { withFileTypes: true })
    } catch {
      continue // vanished or unreadable: not a session directory of ours
    }
    for (const session of sessions) {
      if (!session.isDirectory()) continue
      try {
        await stat(join(layout.root, project.name, session.name, SESSION_FILE))
        return true
      } catch {
        // no session file in this directory
      }
    }
  }
  return false
}

/**
 * Creates the identity file of a pristine root atomically (the root must exist); if another process created it
 * first, reads theirs. Returns the resulting state.
 */
export async function createStoreFile(layout: StoreLayout, durability: Durability): Promise<StoreState> {
  const storeId = randomUUID()
  const data = Buffer.from(`${JSON.stringify({ format: STORE_FORMAT, layout: STORE_LAYOUT, storeId })}\n`, 'utf8')
  try {
    await publishNewFile(`${layout.storeFile}.${storeId}.tmp`, layout.storeFile, data, durability)
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error
    return classifyStoreFile(await readFile(layout.storeFile, 'utf8'))
  }
  return { kind: 'ready', storeId }
}
