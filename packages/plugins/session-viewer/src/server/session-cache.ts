/**
 * The sessions the viewer holds, read as a reader: each is opened with `open(id, 'read')` (no claim, no lock, never a
 * write) and followed by reading from its next seq with the same read handle. A cheap check of the stored artifact
 * (size and modification time of the file `locate` names, and of its `-wal` beside it) skips reads while nothing was
 * written. The least recently used session is dropped past `capacity`.
 */

import { stat } from 'node:fs/promises'
import { isSessionPersistenceError, type SessionHandle, type SessionPersistence } from '@logbook/session-persistence'
import { SessionView, type ViewChange } from '../model/session-view.ts'

/** A held session. */
interface Entry {
  view: SessionView
  handle: SessionHandle
  /** The artifact's path, when the backend can name one. */
  readonly path: string | undefined
  signature: string | undefined
  /** Serialises loads and reads of this id. */
  queue: Promise<unknown>
}

/** A session caught up with its store: what changed since the previous read, and whether it was read anew. */
export interface Freshened {
  readonly view: SessionView
  readonly change: ViewChange | null
  /** The stored session was re-created (or is new to the cache): the whole view is new. */
  readonly reloaded: boolean
}

/** Size, modification time and inode of `path` and of `<path>-wal`; `undefined` when `path` cannot be stat'ed. */
async function signatureOf(path: string): Promise<string | undefined> {
  const parts: string[] = []
  for (const file of [path, `${path}-wal`]) {
    try {
      const s = await stat(file, { bigint: true })
      parts.push(`${s.size}:${s.mtimeNs}:${s.ino}`)
    } catch {
      // A missing `-wal` (JSONL, or SQLite outside WAL mode) is part of the signature: nothing to compare.
      parts.push('-')
    }
  }
  return parts[0] === '-' ? undefined : parts.join('/')
}

/** Sessions held for rendering, each followed through its read handle. */
export class SessionCache {
  private readonly entries = new Map<string, Entry>()
  private readonly loading = new Map<string, Promise<Entry>>()
  private closed = false

  constructor(private readonly persistence: () => SessionPersistence, private readonly capacity: number) {}

  /**
   * Session `id` caught up with its store.
   * @throws persistence errors of `open(id, 'read')`: `SESSION_NOT_FOUND` (also once a held session was deleted),
   * `SESSION_CORRUPT`, `SESSION_FORMAT_UNSUPPORTED`, `INVALID_ARGUMENT`.
   */
  async fresh(id: string): Promise<Freshened> {
    const held = this.entries.get(id)
    if (held === undefined) {
      const entry = await this.load(id)
      return { view: entry.view, change: null, reloaded: true }
    }
    this.touch(id, held)
    const run = held.queue.then(() => this.follow(id, held))
    held.queue = run.catch(() => {})
    return run
  }

  /** Session `id` as held, without reading the store (`undefined` when it is not held). */
  held(id: string): SessionView | undefined {
    return this.entries.get(id)?.view
  }

  /** Closes every handle; later calls fail. */
  async close(): Promise<void> {
    this.closed = true
    const entries = [...this.entries.values()]
    this.entries.clear()
    await Promise.allSettled(entries.map(entry => entry.handle.close()))
  }

  private async load(id: string): Promise<Entry> {
    const pending = this.loading.get(id)
    if (pending !== undefined) return pending
    const run = (async () => {
      const persistence = this.persistence()
      const path = await persistence.locate(id).catch(() => undefined)
      const signature = path === undefined ? undefined : await signatureOf(path)
      const handle = await persistence.open(id, 'read')
      try {
        const view = new SessionView(id, handle.header, await handle.read(0))
        const entry: Entry = { view, handle, path, signature, queue: Promise.resolve() }
        if (this.closed) throw new Error('the viewer is closed')
        this.touch(id, entry)
        return entry
      } catch (error) {
        await handle.close()
        throw error
      }
    })()
    this.loading.set(id, run)
    try {
      return await run
    } finally {
      this.loading.delete(id)
    }
  }

  private async follow(id: string, entry: Entry): Promise<Freshened> {
    if (entry.path !== undefined) {
      const signature = await signatureOf(entry.path)
      if (signature !== undefined && signature === entry.signature) return { view: entry.view, change: null, reloaded: false }
      entry.signature = signature
    }
    try {
      const change = entry.view.append(await entry.handle.read(entry.view.nextSeq))
      // Events arrived: someone is writing the session.
      if (change !== null) entry.view.writer = 'live'
      return { view: entry.view, change, reloaded: false }
    } catch (error) {
      const stale = isSessionPersistenceError(error, 'SESSION_CONFLICT') || isSessionPersistenceError(error, 'SESSION_HANDLE_CLOSED')
      if (!stale) throw error
      // Deleted or re-created since it was opened (or dropped from the cache meanwhile): read it anew, or fail
      // SESSION_NOT_FOUND when it is gone.
      this.drop(id, entry)
      const fresh = await this.load(id)
      return { view: fresh.view, change: null, reloaded: true }
    }
  }

  private touch(id: string, entry: Entry): void {
    this.entries.delete(id)
    this.entries.set(id, entry)
    while (this.entries.size > this.capacity) {
      const [oldest, old] = this.entries.entries().next().value as [string, Entry]
      this.drop(oldest, old)
    }
  }

  private drop(id: string, entry: Entry): void {
    if (this.entries.get(id) === entry) this.entries.delete(id)
    void entry.handle.close().catch(() => {})
  }
}
