SELECT id, version, created_at, cwd, parent_session, header, incarnation, next_seq, updated_at, revision
FROM logbook_sessions
WHERE (:cwd IS NULL OR cwd = :cwd)
  AND (:parentMode = 0 OR (:parentMode = 1 AND parent_session = :parentSession) OR (:parentMode = 2 AND parent_session IS NULL))
  AND (:updatedAfter IS NULL OR updated_at > :updatedAfter)
ORDER BY updated_at DESC, id ASC
LIMIT :limit
