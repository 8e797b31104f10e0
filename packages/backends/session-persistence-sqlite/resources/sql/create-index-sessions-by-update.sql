CREATE INDEX logbook_sessions_by_update ON logbook_sessions (updated_at DESC, id)
