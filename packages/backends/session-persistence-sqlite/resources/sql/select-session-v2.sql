SELECT id, version, created_at, cwd, parent_session, header, incarnation, next_seq, updated_at, revision, crc FROM logbook_sessions WHERE id = :id
