SELECT seq, last_seq, kind, type, time, body, crc FROM logbook_events WHERE session_id = :sessionId AND seq < :beforeSeq ORDER BY seq DESC LIMIT 1
