-- New label index entries wait in a GIN index's pending list until it is
-- merged into the index: by (auto)vacuum, or by the insert that fills it.
-- Every selector scans the whole pending list. At PostgreSQL's default of
-- 4 MB, 100,000 creates in a burst left all 100,000 entries pending, and a
-- 1% label selector on them took 21-31 ms instead of 5 ms in PostgreSQL.
-- 512 kB keeps at most about 13,000 entries pending; measured, creates were
-- no slower.
ALTER INDEX objects_labels SET (gin_pending_list_limit = 512);
ALTER INDEX objects_label_keys SET (gin_pending_list_limit = 512);
