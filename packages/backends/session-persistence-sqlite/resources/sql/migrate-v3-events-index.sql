CREATE UNIQUE INDEX logbook_events_by_seq ON logbook_events (session_id, seq)
