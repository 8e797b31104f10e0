SELECT session_id, owner_id, pid, host, process_start, acquired_at FROM logbook_leases ORDER BY session_id
