/**
 * Store layout (02 §5 "Layout"): project keys, encoded ids and every path the backend touches. Pure functions, no I/O.
 */
import { createHash } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import { isValidSessionId } from '@logbook/session'

/** Name of the store identity file at the root. */
export const STORE_FILE = '.logbook-store.json'
/** Directory of lock files, one per session id whatever its project directory. */
export const LOCKS_DIR = '.locks'
/** Directory that receives session directories being deleted. */
export const DELETED_DIR = '.deleted'
/** File name of a session log inside its session directory. */
export const SESSION_FILE = 'session.jsonl'
/** File name of the projection checkpoint beside the log. */
export const CHECKPOINT_FILE = 'projections.json'
/** Project key of sessions whose header has no `cwd`. */
export const NO_CWD_KEY = '_no-cwd'

const MAX_KEY_PREFIX = 100
const MAX_ENCODED_ID = 64
const ENCODED_ID_HEAD = 46

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/**
 * Maps a cwd to its project directory name; distinct cwds never share a key, even on case-insensitive filesystems,
 * because the key ends with 12 hex digits of the cwd's SHA-256.
 */
export function projectKey(cwd: string | undefined): string {
  if (cwd === undefined) return NO_CWD_KEY
  const known = projectKeys.get(cwd)
  if (known !== undefined) return known
  const key = computeProjectKey(cwd)
  // Listing checks every header's cwd; a store has few distinct cwds, so a small memo saves a hash per session.
  if (projectKeys.size >= PROJECT_KEY_MEMO) projectKeys.clear()
  projectKeys.set(cwd, key)
  return key
}

const PROJECT_KEY_MEMO = 1024
const projectKeys = new Map<string, string>()

function computeProjectKey(cwd: string): string {
  let key = ''
  let inSeparatorRun = false
  for (const ch of cwd) {
    if (ch === '/' || ch === '\\' || ch === ':') {
      if (!inSeparatorRun) key += '-'
      inSeparatorRun = true
      continue
    }
    inSeparatorRun = false
    key += /^[A-Za-z0-9._-]$/.test(ch) ? ch : '_'
  }
  key = key.replace(/^-+|-+$/g, '')
  if (key.startsWith('.')) key = `_${key.slice(1)}`
  key = Array.from(key).slice(0, MAX_KEY_PREFIX).join('')
  if (key === '') key = 'root'
  return `${key}-${sha256Hex(cwd).slice(0, 12)}`
}

/**
 * Encodes a valid session id as a directory/file name that is injective and safe on case-insensitive filesystems
 * (`X` → `~x`), at most 64 characters (long ids keep 46 characters, then `~~` and 16 hex digits of SHA-256).
 */
export function encodeId(id: string): string {
  const encoded = id.replace(/[A-Z]/g, (c) => `~${c.toLowerCase()}`)
  if (encoded.length <= MAX_ENCODED_ID) return encoded
  return `${encoded.slice(0, ENCODED_ID_HEAD)}~~${sha256Hex(id).slice(0, 16)}`
}

/**
 * True iff `encodeId(id) === name`, without building the encoding in the usual case: an id already its own encoding
 * (at most 64 characters, no uppercase letter: `toLowerCase` keeps it) is compared directly.
 */
export function isEncodedAs(id: string, name: string): boolean {
  if (id === name && id.length <= MAX_ENCODED_ID && id.toLowerCase() === id) return true
  return encodeId(id) === name
}

/**
 * The id an encoded directory name stands for, when the name holds it whole (`~x` → `X`); `undefined` for a hashed
 * long id (`~~`) or a name `encodeId` never produces.
 */
export function decodeId(encoded: string): string | undefined {
  if (encoded.includes('~~')) return undefined
  const id = encoded.replace(/~([a-z])/g, (_, c: string) => c.toUpperCase())
  return encodeId(id) === encoded && isValidSessionId(id) ? id : undefined
}

/**
 * The store a `session.jsonl` path sits in, by the layout alone (`<root>/<project>/<encoded-id>/session.jsonl`): its
 * root and, when the directory name holds it whole, the session id; `undefined` for another file name. The file is
 * not read, so a damaged header does not hide which session it is.
 */
export function sessionOfFile(file: string): { readonly root: string; readonly id: string | undefined } | undefined {
  if (basename(file) !== SESSION_FILE) return undefined
  const sessionDir = dirname(file)
  return { root: dirname(dirname(sessionDir)), id: decodeId(basename(sessionDir)) }
}

/** Every path of one store root; `root` is absolute. */
export class StoreLayout {
  readonly storeFile: string
  readonly locksDir: string
  readonly deletedDir: string

  constructor(readonly root: string) {
    this.storeFile = join(root, STORE_FILE)
    this.locksDir = join(root, LOCKS_DIR)
    this.deletedDir = join(root, DELETED_DIR)
  }

  /** Directory of one project key. */
  projectDir(key: string): string {
    return join(this.root, key)
  }

  /** Directory of one session inside a project directory. */
  sessionDir(key: string, id: string): string {
    return join(this.root, key, encodeId(id))
  }

  /** The session log `<root>/<key>/<encoded-id>/session.jsonl`. */
  sessionFile(key: string, id: string): string {
    return join(this.sessionDir(key, id), SESSION_FILE)
  }

  /** The lock file `<root>/.locks/<encoded-id>.lock`. */
  lockFile(id: string): string {
    return join(this.locksDir, `${encodeId(id)}.lock`)
  }
}

/** True for names the layout reserves (dot files and directories at the root). */
export function isReservedName(name: string): boolean {
  return name.startsWith('.')
}
