INSERT INTO logbook_leases (session_id, owner_id, pid, host, process_start, acquired_at)
VALUES (:sessionId, :ownerId, :pid, :host, :processStart, :acquiredAt)
