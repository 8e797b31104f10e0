CREATE TABLE logbook_store (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  store_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT
