ALTER TABLE logbook_sessions ADD COLUMN crc INTEGER
