CREATE TABLE logbook_sessions (
  id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  cwd TEXT,
  parent_session TEXT,
  header TEXT NOT NULL,
  incarnation TEXT NOT NULL,
  next_seq INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  revision INTEGER NOT NULL
) STRICT
