SELECT count(*) AS n FROM logbook_events WHERE session_id = :sessionId
