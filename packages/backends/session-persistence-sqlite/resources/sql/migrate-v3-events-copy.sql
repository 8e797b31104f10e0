INSERT INTO logbook_events (session_id, seq, last_seq, kind, type, time, body, crc)
SELECT session_id, seq, last_seq, kind, type, time, body, crc FROM logbook_events_v2 ORDER BY session_id, seq
