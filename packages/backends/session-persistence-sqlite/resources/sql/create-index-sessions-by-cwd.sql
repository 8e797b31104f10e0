CREATE INDEX logbook_sessions_by_cwd ON logbook_sessions (cwd)
