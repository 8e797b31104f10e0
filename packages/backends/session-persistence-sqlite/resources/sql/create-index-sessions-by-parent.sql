CREATE INDEX logbook_sessions_by_parent ON logbook_sessions (parent_session)
