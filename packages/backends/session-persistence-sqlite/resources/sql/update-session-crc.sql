UPDATE logbook_sessions SET crc = :crc WHERE id = :id
