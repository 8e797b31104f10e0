/**
 * `list` (02 §1.3, §5 "List"): summaries from the two ends of each session file, filtered, ordered by `updatedAt`
 * descending then id bytes ascending, paged by keyset. The latest scan is kept, and a page whose cursor it issued is
 * served from it, so a full walk reads each file's ends once. Files are read synchronously in slices of
 * `SLICE` sessions with a yield to the event loop between slices; revisions are computed only for the items a page
 * returns, from their last 4 KiB read again at the size the scan saw (a kept copy of every tail would cost a page
 * fault per file in a fresh process, more than one small read per returned item). Every
 * scan reads every file's ends; what they decode to (header checks, last record) is memoised by the exact lines read,
 * so a repeated listing skips the parse and the checks of unchanged files and can never serve a changed one.
 */
import { readdirSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { deepFreeze, isSupportedSessionFormat, parsedHeaderError, SESSION_FORMAT_VERSION, type SessionHeader } from '@logbook/session'
import {
  compareSummaries,
  formatVersionError,
  ListingMemo,
  matchesQuery,
  SessionPersistenceCorruptionError,
  SessionPersistenceError,
  type BackendListQuery,
  type BackendListResult,
  type ListProblem,
  type SessionSummary,
} from '@logbook/session-persistence'
import { lastEventOf, readFileEnds, readTailAt, type FileEnds } from './file-ends.ts'
import { storeError } from './errors.ts'
import { CURRENT_FRAMING } from './framing.ts'
import { decodeHeaderLine, newerFramingError } from './header-line.ts'
import { errnoCode } from './io.ts'
import { decodeId, isReservedName, projectKey, SESSION_FILE } from './layout.ts'
import { revisionOf } from './revision.ts'
import type { JsonlStore } from './store.ts'

/** Sessions read per synchronous slice. */
const SLICE = 64

/** What the ends of one session file decode to: a pure function of its header line, last line and path. */
interface Decoded {
  readonly id: string
  readonly updatedAt: number
  /** Checked; frozen when a page first returns it (shared by every scan that finds the same lines). */
  readonly header: SessionHeader
  readonly eventCount: number
  readonly incarnation: string
}

/** A listed session whose revision is computed when a page first returns it. */
interface Listed extends Decoded {
  readonly file: string
  /** The size the scan read. */
  readonly size: number
  summary: SessionSummary | undefined
}

type Entry = { readonly listed: Listed } | { readonly problem: ListProblem }
type DecodedEntry = { readonly decoded: Decoded } | { readonly problem: ListProblem }

interface Scan {
  readonly key: string
  readonly items: readonly Listed[]
  readonly problems: readonly ListProblem[]
  /** Each cursor position this scan issued, with the index of the item after it. */
  readonly issued: Map<string, number>
}

const filterKey = (q: BackendListQuery): string =>
  JSON.stringify([q.cwd ?? '\u0000none', q.parentSession === undefined ? '\u0000none' : q.parentSession, q.updatedAfter ?? null])
const positionKey = (p: { updatedAt: number; id: string }): string => `${p.updatedAt}:${p.id}`

function corrupt(location: string, sessionId: string | undefined, detail: string, cause?: unknown): ListProblem {
  const error = new SessionPersistenceCorruptionError(
    `${sessionId === undefined ? '' : `session "${sessionId}": `}${detail}`,
    { ...(sessionId === undefined ? {} : { sessionId }), location, detail, ...(cause === undefined ? {} : { cause }) },
  )
  return { location, ...(sessionId === undefined ? {} : { sessionId }), error }
}

/** A `STORE_IO` problem for an entry that cannot be read at all (a directory named session.jsonl, EACCES, ELOOP…). */
function unreadable(location: string, sessionId: string | undefined, message: string, cause: unknown): ListProblem {
  const code = errnoCode(cause)
  const text = `${sessionId === undefined ? '' : `session "${sessionId}": `}${message}${code === undefined ? '' : ` (${code})`}`
  const error = new SessionPersistenceError('STORE_IO', text, { ...(sessionId === undefined ? {} : { sessionId }), location, cause })
  return { location, ...(sessionId === undefined ? {} : { sessionId }), error }
}

/** Summarises one session file (without its revision), or says why it cannot be summarised. */
function summarise(file: string, projectDir: string, sessionDir: string, memo: ListingMemo<DecodedEntry>): Entry | undefined {
  let ends
  try {
    ends = readFileEnds(file)
  } catch (error) {
    if (errnoCode(error) === 'ENOTDIR') {
      const entry = dirname(file)
      return { problem: unreadable(entry, undefined, `${entry} is not a session directory`, error) }
    }
    return { problem: unreadable(file, decodeId(sessionDir), `cannot read the session file ${file}`, error) }
  }
  if (ends === undefined) return undefined
  // Everything `decodeEnds` reads besides the path: the header line (and whether a newline ended it) and the last line.
  const inputs = [ends.header?.text, ends.header?.complete === true ? 1 : 0, ends.lastLine]
  const entry = memo.recall(file, inputs, () => decodeEnds(ends, file, projectDir, sessionDir))
  if ('problem' in entry) return entry
  const { id, updatedAt, header, eventCount, incarnation } = entry.decoded
  // One literal shape for every entry: the sort and the page search compare these objects in a hot loop.
  return { listed: { id, updatedAt, header, eventCount, incarnation, file, size: ends.size, summary: undefined } }
}

/** What the ends of the file at `file` say: its checked header, event count and update time, or the problem. */
function decodeEnds(ends: FileEnds, file: string, projectDir: string, sessionDir: string): DecodedEntry {
  const head = decodeHeaderLine(ends.header, { projectDir, sessionDir })
  const header = head.header
  // An unreadable header names no id: the directory name still does (unless it is a hashed long id).
  const id = typeof header?.id === 'string' ? header.id : decodeId(sessionDir)
  if (head.defect !== undefined) return { problem: corrupt(file, id, head.defect) }
  if (head.newerFraming !== undefined) {
    return { problem: { location: file, ...(id === undefined ? {} : { sessionId: id }), error: newerFramingError(id ?? sessionDir, head.newerFraming, file) } }
  }
  if (header === undefined) return { problem: corrupt(file, id, head.problem ?? 'unreadable header') }
  if (typeof header.version === 'number' && !isSupportedSessionFormat(header.version)) {
    const error = formatVersionError(id ?? sessionDir, header.version, SESSION_FORMAT_VERSION, file)
    return { problem: { location: file, ...(id === undefined ? {} : { sessionId: id }), error } }
  }
  if (head.problem !== undefined) return { problem: corrupt(file, id, head.problem) }
  // A parse result is checked in place (no copy); frozen only when a page returns it (unreachable before that).
  const invalid = parsedHeaderError(header, id ?? sessionDir)
  if (invalid !== undefined) return { problem: corrupt(file, id, `invalid header: ${invalid.message}`, invalid) }
  const valid = header as unknown as SessionHeader
  let eventCount = 0
  let updatedAt = valid.createdAt
  if (ends.lastLine === undefined) return { problem: corrupt(file, valid.id, 'the last record is unreadable (no complete line within 1 MiB)') }
  if (ends.lastLine !== null) {
    const last = lastEventOf(ends.lastLine, head.framing ?? CURRENT_FRAMING)
    if ('problem' in last) return { problem: corrupt(file, valid.id, last.problem) }
    eventCount = last.seq + 1
    updatedAt = last.time
  }
  return { decoded: { id: valid.id, updatedAt, header: valid, eventCount, incarnation: head.incarnation } }
}

/**
 * The summary of `listed`, its revision hashed from its last 4 KiB at the size the scan saw (an append since leaves
 * them as they were); undefined when the file was deleted since (a session changed between pages may be skipped,
 * 02 §1.3).
 */
function summaryOf(listed: Listed, storeId: string): SessionSummary | undefined {
  if (listed.summary !== undefined) return listed.summary
  const tail = readTailAt(listed.file, listed.size)
  if (tail === undefined) return undefined
  const { id, eventCount, updatedAt, file } = listed
  // A header is frozen whole by the first page that returns it; later scans share the frozen object.
  const header = Object.isFrozen(listed.header) ? listed.header : deepFreeze(listed.header)
  listed.summary = { id, header, eventCount, updatedAt, revision: revisionOf(storeId, listed.incarnation, listed.size, tail), location: file }
  return listed.summary
}

/** The entries of the store root: none when it does not exist. @throws `STORE_UNSAFE` when it is not a directory. */
function listRoot(root: string): string[] {
  try {
    return readdirSync(root)
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'ENOENT') return []
    if (code === 'ENOTDIR') throw storeError('STORE_UNSAFE', `JSONL store root ${root} is not a directory`, root)
    throw error
  }
}

/** The entries of one project directory, or the problem that keeps it from being listed (it vanished: none). */
function listProject(path: string): string[] | ListProblem {
  try {
    return readdirSync(path)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return []
    return unreadable(path, undefined, errnoCode(error) === 'ENOTDIR' ? `${path} is not a project directory` : `cannot read the project directory ${path}`, error)
  }
}

/** The index of the first of the sorted `items` that lies after the keyset position `after`. */
function firstAfter(items: readonly Listed[], after: { readonly updatedAt: number; readonly id: string }): number {
  let low = 0
  let high = items.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (compareSummaries(items[mid] as Listed, after) > 0) high = mid
    else low = mid + 1
  }
  return low
}

/** Lists one store; keeps the latest scan for the pages that follow it. */
export class Lister {
  #last: Scan | undefined
  /** What each file's ends decoded to, by path, while its header line and last line are unchanged. */
  readonly #decoded = new ListingMemo<DecodedEntry>()

  constructor(private readonly store: JsonlStore) {}

  /** One page for `query` (filters and keyset already validated by the coordinator). */
  async list(query: BackendListQuery): Promise<BackendListResult> {
    const key = filterKey(query)
    const last = this.#last
    const after = query.after
    const issuedAt = after === undefined || last === undefined || last.key !== key ? undefined : last.issued.get(positionKey(after))
    const scan = issuedAt !== undefined ? last! : await this.#scan(query, key)
    this.#last = scan
    // A cursor this scan issued knows its index; any other is found by binary search (a page is O(limit), not O(n)).
    const from = after === undefined ? 0 : issuedAt ?? firstAfter(scan.items, after)
    const page = scan.items.slice(from, from + query.limit)
    const hasMore = from + query.limit < scan.items.length
    if (hasMore) scan.issued.set(positionKey(page[page.length - 1] as Listed), from + query.limit)
    const storeId = page.length === 0 ? '' : await this.store.storeId()
    const items: SessionSummary[] = []
    for (const listed of page) {
      const summary = summaryOf(listed, storeId)
      if (summary !== undefined) items.push(summary)
    }
    return { items, hasMore, problems: scan.problems }
  }

  async #scan(query: BackendListQuery, key: string): Promise<Scan> {
    const { after: _after, ...filters } = query
    const { layout } = this.store
    this.#decoded.beginPass()
    const entries = listRoot(layout.root)
    const projects = query.cwd !== undefined ? [projectKey(query.cwd)] : entries.filter((n) => !isReservedName(n))
    const candidates: { file: string; projectDir: string; sessionDir: string }[] = []
    const problems: ListProblem[] = []
    for (const projectDir of projects) {
      const projectPath = join(layout.root, projectDir)
      const sessionDirs = listProject(projectPath)
      if (!Array.isArray(sessionDirs)) {
        problems.push(sessionDirs)
        continue
      }
      for (const sessionDir of sessionDirs) {
        if (isReservedName(sessionDir)) continue
        // Directory entry names hold no separator: plain concatenation is the normalised join.
        candidates.push({ file: `${projectPath}${sep}${sessionDir}${sep}${SESSION_FILE}`, projectDir, sessionDir })
      }
    }
    // The same encoded id under two project directories: the lookup refuses it, so listing reports every copy.
    const copies = new Map<string, number>()
    for (const c of candidates) copies.set(c.sessionDir, (copies.get(c.sessionDir) ?? 0) + 1)
    const items: Listed[] = []
    for (let i = 0; i < candidates.length; i++) {
      if (i > 0 && i % SLICE === 0) await yieldToLoop()
      const c = candidates[i]!
      const entry = summarise(c.file, c.projectDir, c.sessionDir, this.#decoded)
      if (entry === undefined) continue
      if (copies.get(c.sessionDir) !== 1) {
        const id = 'listed' in entry ? entry.listed.id : entry.problem.sessionId
        problems.push(corrupt(c.file, id, 'id stored twice (in more than one project directory)'))
      } else if ('problem' in entry) {
        problems.push(entry.problem)
      } else if (matchesQuery(entry.listed as unknown as SessionSummary, filters)) {
        items.push(entry.listed)
      }
    }
    items.sort(compareSummaries)
    return { key, items, problems, issued: new Map() }
  }
}
