INSERT INTO logbook_projection_checkpoints (session_id, seq, body) VALUES (:sessionId, :seq, :body)
ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, body = excluded.body
