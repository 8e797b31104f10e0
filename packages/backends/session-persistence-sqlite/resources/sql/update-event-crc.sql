UPDATE logbook_events SET crc = :crc WHERE session_id = :sessionId AND seq = :seq
