ALTER TABLE logbook_events RENAME TO logbook_events_v2
