ROLLBACK TO logbook_batch
