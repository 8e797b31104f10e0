SELECT seq, body FROM logbook_projection_checkpoints WHERE session_id = :sessionId
