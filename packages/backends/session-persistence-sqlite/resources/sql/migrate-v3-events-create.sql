CREATE TABLE logbook_events (
  session_id TEXT NOT NULL REFERENCES logbook_sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('event', 'text-chunks', 'reasoning-chunks', 'tool-call-chunks')),
  type TEXT NOT NULL,
  time INTEGER NOT NULL,
  body TEXT NOT NULL,
  crc INTEGER
) STRICT
