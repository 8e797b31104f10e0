SELECT id FROM logbook_sessions ORDER BY id
