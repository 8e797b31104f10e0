SELECT seq, last_seq, kind, type, time, body FROM logbook_events WHERE session_id = :sessionId AND seq >= :fromSeq ORDER BY seq LIMIT :limit
