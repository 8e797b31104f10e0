CREATE TABLE logbook_leases (
  session_id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  process_start TEXT,
  acquired_at INTEGER NOT NULL
) STRICT
