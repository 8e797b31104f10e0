SELECT l.owner_id AS owner_id, l.pid AS pid, l.host AS host, l.process_start AS process_start,
  l.acquired_at AS acquired_at, s.incarnation AS incarnation, s.next_seq AS next_seq, s.updated_at AS updated_at,
  s.revision AS revision
FROM logbook_leases AS l LEFT JOIN logbook_sessions AS s ON s.id = l.session_id
WHERE l.session_id = :sessionId
