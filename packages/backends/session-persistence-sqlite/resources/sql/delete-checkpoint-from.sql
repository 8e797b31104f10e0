DELETE FROM logbook_projection_checkpoints WHERE session_id = :sessionId AND seq >= :fromSeq
