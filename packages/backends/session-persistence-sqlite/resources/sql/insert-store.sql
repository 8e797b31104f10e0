INSERT INTO logbook_store (singleton, store_id, created_at) VALUES (1, :storeId, :createdAt)
