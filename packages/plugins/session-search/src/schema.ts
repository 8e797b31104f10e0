/**
 * The index file (spec 04 §4): one SQLite database with a table of sessions (where each one's indexing stands), a
 * table of texts, and two FTS5 indexes over those texts that store no copy of them (external content): `unicode61`
 * for words (bm25 word ranking, words of any length, diacritics folded) and `trigram` for scripts written without
 * spaces (Chinese, Japanese, Thai) and for terms that are not words. The store writes both indexes with every text
 * it adds or removes (store.ts): explicit statements, because triggers doing the same cost about 3.5 × as much here.
 */
import type Database from 'better-sqlite3'

/** `PRAGMA application_id` of an index file ("LBSX"). */
export const INDEX_APPLICATION_ID = 0x4c425358
/** `PRAGMA user_version` of the layout below; an index of another version is rebuilt (it is a cache). */
export const INDEX_SCHEMA_VERSION = 1

/** The schema, in creation order. */
const SCHEMA: readonly string[] = [
  `CREATE TABLE search_sessions (
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    version INTEGER NOT NULL,
    revision TEXT,
    event_count INTEGER NOT NULL,
    resume_seq INTEGER NOT NULL,
    open_turn INTEGER,
    last_type TEXT,
    last_time INTEGER,
    surface TEXT NOT NULL,
    title_state TEXT NOT NULL,
    title TEXT,
    inherited INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT`,
  `CREATE TABLE search_texts (
    id INTEGER PRIMARY KEY,
    session_key INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER,
    type TEXT NOT NULL,
    field TEXT NOT NULL,
    on_surface INTEGER NOT NULL,
    text TEXT NOT NULL
  ) STRICT`,
  'CREATE INDEX search_texts_by_session ON search_texts(session_key, seq)',
  `CREATE VIRTUAL TABLE search_words USING fts5(text, content='search_texts', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2')`,
  `CREATE VIRTUAL TABLE search_grams USING fts5(text, content='search_texts', content_rowid='id', tokenize='trigram')`,
]

/** Objects a rebuild drops (triggers go with their table; FTS shadow tables with theirs). */
const DROPS: readonly string[] = [
  'DROP TABLE IF EXISTS search_words', 'DROP TABLE IF EXISTS search_grams',
  'DROP TABLE IF EXISTS search_texts', 'DROP TABLE IF EXISTS search_sessions',
]

/** What an opened file is. */
export type IndexFileState = 'pristine' | 'current' | 'other-version' | 'foreign'

/** Classify the database `db` is connected to (read-only). */
export function indexFileState(db: Database.Database): IndexFileState {
  const app = db.pragma('application_id', { simple: true }) as number
  if (app === INDEX_APPLICATION_ID) {
    return (db.pragma('user_version', { simple: true }) as number) === INDEX_SCHEMA_VERSION ? 'current' : 'other-version'
  }
  const objects = (db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'").get() as { n: number }).n
  return app === 0 && objects === 0 ? 'pristine' : 'foreign'
}

/** Create the schema (dropping an older layout first), inside the caller's write transaction. */
export function createSchema(db: Database.Database, replacing: boolean): void {
  if (replacing) for (const sql of DROPS) db.exec(sql)
  for (const sql of SCHEMA) db.exec(sql)
  db.pragma(`application_id = ${INDEX_APPLICATION_ID}`)
  db.pragma(`user_version = ${INDEX_SCHEMA_VERSION}`)
}

/** Empty every table (a full rebuild), inside the caller's write transaction. */
export function clearSchema(db: Database.Database): void {
  for (const sql of DROPS) db.exec(sql)
  for (const sql of SCHEMA) db.exec(sql)
}
