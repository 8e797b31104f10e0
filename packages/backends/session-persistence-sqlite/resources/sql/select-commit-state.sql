SELECT s.next_seq AS next_seq, s.revision AS revision, l.owner_id AS owner_id
FROM logbook_sessions AS s LEFT JOIN logbook_leases AS l ON l.session_id = s.id
WHERE s.id = :id
