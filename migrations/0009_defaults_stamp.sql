-- defaults_stamp is the DefaultsStamp of the schema of the row's stored
-- version when its body was written with every default of that schema
-- (engine/schema stamp.go); NULL or 0 when unknown. A list whose schema
-- has the same stamp skips the check for missing defaults, which cost a
-- quarter of a list's own time per row. Rows written before this column
-- (NULL) are checked as before, until their next write.
ALTER TABLE objects ADD COLUMN defaults_stamp bigint;
