DELETE FROM logbook_sessions WHERE id = :id
