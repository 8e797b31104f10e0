SELECT seq, last_seq, kind, type, time, body, crc FROM logbook_events WHERE session_id = :sessionId AND seq >= :fromSeq ORDER BY seq LIMIT :limit
