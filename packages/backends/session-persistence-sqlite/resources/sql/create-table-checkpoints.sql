CREATE TABLE logbook_projection_checkpoints (
  session_id TEXT PRIMARY KEY REFERENCES logbook_sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL
) STRICT
