/**
 * The index file as a store (spec 04 §4): opened lazily (a store nobody indexed or searched gets no file), created
 * 0600 in a 0700 folder, WAL, and written only in `BEGIN IMMEDIATE` transactions that first check the session's
 * `version` — so two processes indexing the same session never both commit a step from the same starting point.
 */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { TitleState } from '@logbook/session-projection'
import { indexUnavailable } from './errors.ts'
import { EMPTY_FOLD, type FoldState, type TextRow, titleOf } from './fold.ts'
import { clearSchema, createSchema, indexFileState } from './schema.ts'
import type { IndexCounts } from './types.ts'

/** The in-memory index path. */
export const MEMORY = ':memory:'

/** A session as the index knows it. */
export interface SessionRecord {
  readonly key: number
  readonly version: number
  readonly revision: string | null
  readonly fold: FoldState
}

/** What the catch-up compares with the store's listing. */
export interface KnownSession {
  readonly revision: string | null
  readonly count: number
}

/** One committed indexing step of one session. */
export interface IndexStep {
  /** Drop everything indexed for the session first. */
  readonly reset: boolean
  readonly rows: readonly TextRow[]
  readonly shadowed: readonly number[]
  readonly fold: FoldState
  /** The stored revision the step brings the index to, when known. */
  readonly revision: string | null
  readonly inherited: number
  readonly updatedAt: number
}

interface SessionRow {
  key: number; version: number; revision: string | null; event_count: number; resume_seq: number; open_turn: number | null
  last_type: string | null; last_time: number | null; surface: string; title_state: string
}

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}
const isBusy = (error: unknown): boolean => String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')

function foldOf(row: SessionRow): FoldState {
  return {
    count: row.event_count,
    resume: row.resume_seq,
    turn: row.open_turn,
    nodes: JSON.parse(row.surface) as number[],
    title: JSON.parse(row.title_state) as TitleState,
    last: row.last_type === null || row.last_time === null ? null : { type: row.last_type, time: row.last_time },
  }
}

/** The index database of one plugin instance (one connection). */
export class IndexStore {
  #db: Database.Database | undefined
  readonly #statements = new Map<string, Database.Statement>()

  constructor(readonly path: string, private readonly busyTimeoutMs: number) {}

  /** True iff the index exists: open here, or a file at `path`. */
  exists(): boolean {
    return this.#db !== undefined || (this.path !== MEMORY && existsSync(this.path))
  }

  /**
   * The connection, opening (and when needed creating) the index first.
   * @throws SessionSearchError `INDEX_UNAVAILABLE` when the file cannot be created or opened, or is not an index.
   */
  db(): Database.Database {
    if (this.#db !== undefined) return this.#db
    let db: Database.Database | undefined
    try {
      if (this.path !== MEMORY && !existsSync(this.path)) {
        mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 })
        try {
          closeSync(openSync(this.path, 'wx', 0o600))
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'EEXIST') throw error // another process created it first
        }
      }
      db = new Database(this.path, { timeout: this.busyTimeoutMs })
      this.prepare(db)
    } catch (error) {
      db?.close()
      throw indexUnavailable(this.path, error)
    }
    this.#db = db
    return db
  }

  private prepare(db: Database.Database): void {
    db.pragma(`busy_timeout = ${this.busyTimeoutMs}`)
    // Classify before changing anything: a foreign file must be left byte for byte as it was.
    const state = indexFileState(db)
    if (state === 'foreign') throw new Error('the file is not a Logbook search index (another application_id or foreign tables)')
    db.pragma('synchronous = NORMAL')
    if (this.path !== MEMORY) this.walMode(db)
    if (state === 'current') return
    db.transaction(() => {
      // Re-read under the write lock: another process may have created the schema meanwhile.
      const now = indexFileState(db)
      if (now === 'pristine' || now === 'other-version') createSchema(db, now === 'other-version')
    }).immediate()
  }

  /** WAL, persistent in the file; switching waits for other connections as `busy_timeout` would. */
  private walMode(db: Database.Database): void {
    const deadline = Date.now() + this.busyTimeoutMs
    for (;;) {
      try {
        if (String(db.pragma('journal_mode = WAL', { simple: true })).toLowerCase() === 'wal') return
        throw new Error('journal_mode WAL is not in effect')
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error
        sleep(10)
      }
    }
  }

  /** A prepared statement for `sql`, cached for the connection's lifetime. */
  statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql)
    if (statement === undefined) {
      statement = this.db().prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  /** The session `id` as indexed, or `undefined`. */
  session(id: string): SessionRecord | undefined {
    if (!this.exists()) return undefined
    const row = this.statement('SELECT * FROM search_sessions WHERE id = ?').get(id) as SessionRow | undefined
    return row === undefined ? undefined : { key: row.key, version: row.version, revision: row.revision, fold: foldOf(row) }
  }

  /** Every indexed session's revision and event count. */
  known(): Map<string, KnownSession> {
    const known = new Map<string, KnownSession>()
    if (!this.exists()) return known
    const rows = this.statement('SELECT id, revision, event_count FROM search_sessions').all() as { id: string; revision: string | null; event_count: number }[]
    for (const row of rows) known.set(row.id, { revision: row.revision, count: row.event_count })
    return known
  }

  /**
   * Commit `step` for `id` iff its version is still `expected` (`null`: not indexed yet); false when another step
   * (another process, another path here) committed first, and then nothing was written.
   */
  commit(id: string, expected: number | null, step: IndexStep): boolean {
    const db = this.db()
    return db.transaction((): boolean => {
      const current = this.statement('SELECT key, version FROM search_sessions WHERE id = ?').get(id) as { key: number; version: number } | undefined
      if ((current?.version ?? null) !== expected) return false
      let key = current?.key
      if (key !== undefined && step.reset) this.dropTexts(key)
      const { fold } = step
      const state = [step.revision, fold.count, fold.resume, fold.turn, fold.last?.type ?? null, fold.last?.time ?? null,
        JSON.stringify(fold.nodes), JSON.stringify(fold.title), titleOf(fold), step.inherited, step.updatedAt]
      if (key === undefined) {
        key = Number(this.statement(`INSERT INTO search_sessions (id, version, revision, event_count, resume_seq, open_turn,
          last_type, last_time, surface, title_state, title, inherited, updated_at) VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(id, ...state).lastInsertRowid)
      } else {
        this.statement(`UPDATE search_sessions SET version = version + 1, revision = ?, event_count = ?, resume_seq = ?,
          open_turn = ?, last_type = ?, last_time = ?, surface = ?, title_state = ?, title = ?, inherited = ?, updated_at = ?
          WHERE key = ?`).run(...state, key)
      }
      const insert = this.statement('INSERT INTO search_texts (session_key, seq, turn, type, field, on_surface, text) VALUES (?, ?, ?, ?, ?, ?, ?)')
      const words = this.statement('INSERT INTO search_words (rowid, text) VALUES (?, ?)')
      const grams = this.statement('INSERT INTO search_grams (rowid, text) VALUES (?, ?)')
      for (const row of step.rows) {
        const id = insert.run(key, row.seq, row.turn, row.type, row.field, row.onSurface ? 1 : 0, row.text).lastInsertRowid
        words.run(id, row.text)
        grams.run(id, row.text)
      }
      const shadow = this.statement('UPDATE search_texts SET on_surface = 0 WHERE session_key = ? AND seq = ?')
      for (const seq of step.shadowed) shadow.run(key, seq)
      return true
    }).immediate()
  }

  /** Remove the texts of session `key` from both FTS indexes (external content: they need the old text), then the table. */
  private dropTexts(key: number): void {
    this.statement("INSERT INTO search_words (search_words, rowid, text) SELECT 'delete', id, text FROM search_texts WHERE session_key = ?").run(key)
    this.statement("INSERT INTO search_grams (search_grams, rowid, text) SELECT 'delete', id, text FROM search_texts WHERE session_key = ?").run(key)
    this.statement('DELETE FROM search_texts WHERE session_key = ?').run(key)
  }

  /** Record that the index of `id` matches stored revision `revision` (an empty entry when `id` is new). */
  markRevision(id: string, revision: string): void {
    const done = this.statement('UPDATE search_sessions SET revision = ? WHERE id = ?').run(revision, id)
    if (done.changes > 0) return
    this.commit(id, null, { reset: false, rows: [], shadowed: [], fold: EMPTY_FOLD, revision, inherited: 0, updatedAt: 0 })
  }

  /** Drop `id` and its texts; true iff it was indexed. */
  forget(id: string): boolean {
    if (!this.exists()) return false
    return this.db().transaction((): boolean => {
      const row = this.statement('SELECT key FROM search_sessions WHERE id = ?').get(id) as { key: number } | undefined
      if (row === undefined) return false
      this.dropTexts(row.key)
      this.statement('DELETE FROM search_sessions WHERE key = ?').run(row.key)
      return true
    }).immediate()
  }

  /** Empty the whole index (a full rebuild follows). */
  clear(): void {
    const db = this.db()
    db.transaction(() => clearSchema(db)).immediate()
    this.#statements.clear()
  }

  /** How many sessions and texts the index holds. */
  counts(): IndexCounts {
    if (!this.exists()) return { sessions: 0, texts: 0 }
    const sessions = (this.statement('SELECT count(*) AS n FROM search_sessions').get() as { n: number }).n
    const texts = (this.statement('SELECT count(*) AS n FROM search_texts').get() as { n: number }).n
    return { sessions, texts }
  }

  /** Close the connection; a later call opens it again. */
  close(): void {
    this.#statements.clear()
    this.#db?.close()
    this.#db = undefined
  }
}
