DELETE FROM logbook_leases WHERE session_id = :sessionId AND owner_id = :ownerId
