SELECT store_id, created_at FROM logbook_store WHERE singleton = 1
