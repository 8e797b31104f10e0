INSERT INTO logbook_events (session_id, seq, last_seq, kind, type, time, body, crc)
VALUES (:sessionId, :seq, :lastSeq, :kind, :type, :time, :body, :crc)
