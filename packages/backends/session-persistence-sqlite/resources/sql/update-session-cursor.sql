UPDATE logbook_sessions SET next_seq = :nextSeq, updated_at = :updatedAt, revision = revision + 1 WHERE id = :id
