DELETE FROM logbook_events WHERE session_id = :sessionId AND seq >= :fromSeq
