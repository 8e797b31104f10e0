INSERT INTO logbook_sessions (id, version, created_at, cwd, parent_session, header, incarnation, next_seq, updated_at, revision, crc)
VALUES (:id, :version, :createdAt, :cwd, :parentSession, :header, :incarnation, 0, :createdAt, 0, :crc)
